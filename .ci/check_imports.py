"""The package is laid out by role: every nanogpt module sits in one declared layer and imports only from its own
layer or the layers below it, counting imports inside functions; within a layer the imports form no cycle.

There is no exceptions list. A module missing from LAYERS, an import that points up a layer, or a cycle inside a layer
makes this script print the offence and exit 1. It prints the layer table (module, layer, what it imports) first.
"""
import ast
import sys
from pathlib import Path

LAYERS = {  # bottom to top
    'base': ('errors', 'files', 'runtime', 'checks'),  # errors, files and hashes, random state, optional imports; the machine
    'model and data': ('tokenizers', 'data', 'corpus', 'bigram', 'modern', 'attention', 'model', 'checkpoint', 'pretrained', 'chat', 'tools'),
    'training and inference': ('runs', 'train', 'align', 'shape', 'config', 'memory', 'distributed', 'lora', 'sample', 'evaluate', 'tasks', 'harness', 'export', 'talk', 'guard', 'serve', 'jobs'),
    'command line': ('cli', 'bench', '__main__', '__init__'),  # the package's front door imports what it attaches
}
# Inference never imports training, directly or through another module: a server or an export loads no trainer.
INFERENCE = ('sample', 'evaluate', 'tasks', 'harness', 'export', 'talk', 'guard', 'serve')
TRAINING = ('runs', 'train', 'align', 'shape', 'config', 'memory', 'distributed', 'lora', 'jobs')
root = Path(__file__).resolve().parent.parent
package = root / 'nanogpt'
level = {module: i for i, modules in enumerate(LAYERS.values()) for module in modules}
layer_name = {i: name for i, name in enumerate(LAYERS)}


def imports_of(path: Path, modules: set) -> set:
    "The nanogpt modules `path` imports anywhere in it, functions included"
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1: names = [node.module] if node.module else [a.name for a in node.names]
            elif (node.module or '').startswith('nanogpt.'): names = [node.module.split('.')[1]]
            elif node.module == 'nanogpt': names = [a.name for a in node.names]
            else: names = []
        elif isinstance(node, ast.Import): names = [a.name.split('.')[1] for a in node.names if a.name.startswith('nanogpt.')]
        else: continue
        found |= {n.split('.')[0] for n in names if n and n.split('.')[0] in modules}
    return found - {path.stem}


def cycles(edges: dict) -> list:
    "Every cycle found by a depth-first walk, as 'a -> b -> a'"
    state, found = {}, []
    def visit(node, path):
        state[node] = 'open'
        for nxt in sorted(edges[node]):
            if state.get(nxt) == 'open': found.append(' -> '.join(path[path.index(nxt):] + [nxt]))
            elif nxt not in state: visit(nxt, path + [nxt])
        state[node] = 'done'
    for node in sorted(edges):
        if node not in state: visit(node, [node])
    return found


def check(package: Path) -> list:
    "The offences in `package`, printing its layer table"
    modules = {p.stem: p for p in package.glob('*.py') if p.stem != '_modidx'}
    problems = [f'{m} is in no layer: add it to LAYERS in .ci/check_imports.py' for m in sorted(modules) if m not in level]
    edges = {m: imports_of(p, set(modules)) for m, p in modules.items()}
    print(f'{"module":<12} {"layer":<24} imports')
    for m in sorted(modules, key=lambda m: (level.get(m, 99), m)):
        print(f'{m:<12} {layer_name.get(level.get(m), "?"):<24} {", ".join(sorted(edges[m], key=lambda d: (level.get(d, 99), d))) or "-"}')
        problems += [f'{m} ({layer_name[level[m]]}) imports {d} ({layer_name[level[d]]}), a layer above its own'
                     for d in sorted(edges[m]) if m in level and d in level and level[d] > level[m]]
    problems += [f'an import cycle: {c}' for c in cycles(edges)]
    for m in INFERENCE:
        reached = reachable(edges, m) & set(TRAINING)
        if reached: problems.append(f'{m} (inference) reaches {", ".join(sorted(reached))} (training)')
    return problems


def reachable(edges: dict, start: str) -> set:
    "Every module `start` imports, directly or through others"
    seen, todo = set(), [start]
    while todo:
        for nxt in edges.get(todo.pop(), ()):
            if nxt not in seen: seen.add(nxt); todo.append(nxt)
    return seen


if __name__ == '__main__':
    problems = check(Path(sys.argv[1]) if len(sys.argv) > 1 else package)
    if problems:
        print('The package breaks its layers:\n  ' + '\n  '.join(problems))
        sys.exit(1)
    print('every import points down a layer or stays in its own, with no cycle; inference reaches no training module')
