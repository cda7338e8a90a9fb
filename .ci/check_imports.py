"""Imports point down the course: a nanogpt module imports only modules from earlier notebooks, counting imports inside functions.

The course order is the notebooks' order: numbered lessons by file name (00_errors, 01_tokenizers, ..., 05a_checkpoint, ...),
then the unnumbered ones (bench, cli, main). The one documented exception: `GPT.from_pretrained` / `save_pretrained` in
`model` delegate to `pretrained`. Prints the import graph; exits 1 on an import that points up the course.
"""
import ast
import re
import sys
from pathlib import Path

ALLOWED_UP = {('model', 'pretrained')}  # the GPT.from_pretrained / save_pretrained facade (lesson 05 -> lesson 08)
root = Path(__file__).resolve().parent.parent
package = root / 'nanogpt'


def notebook_of(path: Path) -> str:
    "The notebook a generated module comes from"
    match = re.search(r'File to edit: \.\./nbs/(\S+)\.ipynb', path.read_text())
    return match.group(1) if match else path.stem


def order_key(notebook: str) -> tuple:
    return (0, notebook) if notebook[:2].isdigit() else (1, notebook)


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


modules = {p.stem: p for p in package.glob('*.py') if p.stem not in ('__init__', '_modidx')}
rank = {m: order_key(notebook_of(p)) for m, p in modules.items()}
problems = []
print('import graph (module, its notebook -> what it imports):')
for m in sorted(modules, key=rank.get):
    deps = sorted(imports_of(modules[m], set(modules)), key=rank.get)
    print(f'  {m:<12} ({notebook_of(modules[m])}) -> {", ".join(deps) or "-"}')
    problems += [f'{m} ({notebook_of(modules[m])}) imports {d} ({notebook_of(modules[d])}), a later lesson'
                 for d in deps if rank[d] > rank[m] and (m, d) not in ALLOWED_UP]
if problems:
    print('Imports that point up the course order:\n  ' + '\n  '.join(problems))
    sys.exit(1)
print('every import points down the course')
