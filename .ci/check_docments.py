"""One parameter per line where a signature carries comments (fastcore's docments style), so each comment documents one parameter.

Checks every function and method in the nanogpt package: a signature line that holds a comment may hold at most one
parameter, and a parameter's comment is not on the line of the return annotation (docments would give it to the return
value). Prints each offending line; exits 1 if there is any.
"""
import ast
import io
import sys
import tokenize
from pathlib import Path

root = Path(__file__).resolve().parent.parent
problems = []
for path in sorted((root / 'nanogpt').glob('*.py')):
    source = path.read_text()
    comments = {tok.start[0] for tok in tokenize.generate_tokens(io.StringIO(source).readline) if tok.type == tokenize.COMMENT}
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)): continue
        a = node.args
        params = [p for p in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg] if p is not None and p.arg not in ('self', 'cls')]
        by_line = {}
        for p in params: by_line.setdefault(p.lineno, []).append(p.arg)
        for line, names in by_line.items():
            if len(names) > 1 and line in comments: problems.append(f'{path.name}:{line} {node.name}({", ".join(names)})')
        if node.returns is not None and node.returns.lineno in by_line and node.returns.lineno in comments and node.returns.lineno != node.lineno:
            problems.append(f'{path.name}:{node.returns.lineno} {node.name}: the comment on the `-> ...` line documents the return, '
                            f'not {by_line[node.returns.lineno][-1]}: put `) -> ...:` on a line of its own')
if problems:
    print(f'{len(problems)} signature lines whose comments docments would misread (one parameter per line, and no parameter on the return line):')
    print('\n'.join('  ' + p for p in problems))
    sys.exit(1)
print('every commented signature line documents one parameter')
