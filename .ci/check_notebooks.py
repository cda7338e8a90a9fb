"""Two things about the lessons that nothing else would notice.
- Every lesson's first code cell installs the course on a hosted notebook service (Colab) with live `!git clone` and
  `!pip install` lines; a jupytext round trip comments them out (`# !git ...`) without a word.
- No notebook shows a path outside the repository (a scratch folder under /tmp, a home folder) in its sources or
  committed outputs: a lesson prints scratch folders as SCRATCH."""
import json
import re
import sys
from pathlib import Path

problems = []
for path in sorted(p for p in Path("nbs").rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts):
    cells = json.loads(path.read_text())['cells']
    if path.name[0].isdigit():
        code = [c for c in cells if c['cell_type'] == 'code']
        source = ''.join(code[0]['source']) if code else ''
        if 'nanogpt-course' not in source: problems.append(f'{path}: the first code cell does not install the course on Colab')
        for command in ('git clone', 'pip install'):
            if 'nanogpt-course' in source and not re.search(rf'(?m)^\s*!{command}', source):
                problems.append(f'{path}: its `!{command}` line is commented out (a jupytext round trip does that)')
    for i, cell in enumerate(cells):
        text = ''.join(cell['source']) + json.dumps(cell.get('outputs', []))
        for found in sorted(set(re.findall(r'(?:/tmp/|/home/|/work/|/root/)[\w.-]*', text))):
            problems.append(f'{path} cell {i}: a path outside the repository, {found}')
print('\n'.join(problems) or 'notebooks: Colab install cells live, no paths outside the repository')
sys.exit(1 if problems else 0)
