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
    'training and inference': ('runs', 'train', 'align', 'shape', 'config', 'memory', 'distributed', 'lora', 'sample', 'evaluate', 'tasks', 'harness', 'export', 'talk', 'guard', 'serve', 'inference', 'jobs'),
    'command line': ('cli', 'bench', '__main__', '__init__'),  # the package's front door imports what it attaches
}
# Inference never imports training, directly or through another module: a server or an export loads no trainer.
INFERENCE = ('sample', 'evaluate', 'tasks', 'harness', 'export', 'talk', 'guard', 'serve', 'inference')
TRAINING = ('runs', 'train', 'align', 'shape', 'config', 'memory', 'distributed', 'lora', 'jobs')
# A command loads what it uses: these cli entries (the parser, every --help, and the commands that only use a model)
# reach no training module, counting cli's top-level imports and every cli function they call.
COMMANDS = {'the parser and every --help': 'build_parser', 'sample': '_run_sample', 'chat': '_run_chat',
            'eval': '_run_eval', 'serve': '_run_serve'}
root = Path(__file__).resolve().parent.parent
package = root / 'nanogpt'
level = {module: i for i, modules in enumerate(LAYERS.values()) for module in modules}
layer_name = {i: name for i, name in enumerate(LAYERS)}


def imports_of(path: Path, modules: set) -> set:
    "The nanogpt modules `path` imports anywhere in it, functions included"
    return module_imports(ast.parse(path.read_text()), modules) - {path.stem}


def module_imports(tree: ast.AST, modules: set) -> set:
    "The nanogpt modules imported anywhere in `tree`"
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1: names = [node.module] if node.module else [a.name for a in node.names]
            elif (node.module or '').startswith('nanogpt.'): names = [node.module.split('.')[1]]
            elif node.module == 'nanogpt': names = [a.name for a in node.names]
            else: names = []
        elif isinstance(node, ast.Import): names = [a.name.split('.')[1] for a in node.names if a.name.startswith('nanogpt.')]
        else: continue
        found |= {n.split('.')[0] for n in names if n and n.split('.')[0] in modules}
    return found


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
    return problems + check_commands(package, edges)


def entry_imports(cli: Path, entry: str, modules: set) -> set:
    "The nanogpt modules cli's `entry` function imports: at the top of cli, in it, and in every cli function it calls"
    tree = ast.parse(cli.read_text())
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    top = ast.Module(body=[n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))], type_ignores=[])
    found, seen, todo = set(), set(), [entry]
    while todo:
        name = todo.pop()
        if name in seen or name not in functions: continue
        seen.add(name)
        body = functions[name]
        found |= module_imports(body, modules)
        # a handler named in set_defaults(run=...) runs for its own command, not this one
        handlers = {k.value.id for n in ast.walk(body) if isinstance(n, ast.Call)
                    and getattr(n.func, 'attr', '') == 'set_defaults' for k in n.keywords if isinstance(k.value, ast.Name)}
        todo += [n.id for n in ast.walk(body) if isinstance(n, ast.Name) and n.id in functions and n.id not in handlers]
    return found | module_imports(top, modules)


def check_commands(package: Path, edges: dict) -> list:
    "The commands of COMMANDS that reach a training module, each with the modules it reaches"
    problems = []
    for command, entry in COMMANDS.items():
        start = entry_imports(package / 'cli.py', entry, set(edges))
        reached = (start | set().union(*(reachable(edges, m) for m in start))) & set(TRAINING)
        print(f'{command:<28} imports {", ".join(sorted(start - {"cli"})) or "-"}')
        if reached: problems.append(f'{command} ({entry} in cli) reaches {", ".join(sorted(reached))} (training)')
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
    print('every import points down a layer or stays in its own, with no cycle; inference reaches no training module, '
          f'nor do {", ".join(COMMANDS)}')
