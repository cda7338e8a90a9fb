"""Two things about the lessons that nothing else would notice.
- Every lesson's first code cell installs the course on a hosted notebook service (Colab) with live `!git clone` and
  `!pip install` lines; a jupytext round trip comments them out (`# !git ...`) without a word.
- No notebook shows a path outside the repository (a scratch folder under /tmp, a home folder) in its sources or
  committed outputs: a lesson prints scratch folders as SCRATCH.
- Exercises a learner can trust: every lesson ends with an Exercises section of 3 to 5 `### Exercise` headings (a
  `### Capstone` may follow); the committed outputs there are only `✓ correct:` lines (and plots), so no check shows a
  traceback or someone else's wrong answer; a `✗` line is shown only where a cell prints a verdict with `.judge(`. No
  notebook commits an error output or a traceback.
- Every exercise's solution cell (`# Solution to exercise N`) is folded (`source_hidden`), so a learner meets
  the exercise before its answer.
- No committed output holds a terminal escape sequence (what a live widget or a progress bar writes to a terminal):
  a reader of the page sees it as junk."""
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
def lines_of(cell: dict) -> list:
    "The text lines a code cell's committed outputs show"
    texts = [''.join(o.get('text', '')) for o in cell.get('outputs', []) if o.get('output_type') == 'stream']
    texts += [''.join(o.get('data', {}).get('text/plain', '')) for o in cell.get('outputs', [])
              if o.get('output_type') in ('execute_result',) and 'image/png' not in o.get('data', {})]
    return [line for text in texts for line in text.splitlines() if line.strip()]


for path in sorted(p for p in Path("nbs").rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts):
    cells = json.loads(path.read_text())['cells']
    for i, cell in enumerate(cells):
        outputs = cell.get('outputs', [])
        if any(o.get('output_type') == 'error' for o in outputs) or 'Traceback (most recent call last)' in json.dumps(outputs):
            problems.append(f'{path} cell {i}: a committed error or traceback')
        if '# Solution to exercise' in ''.join(cell['source']) and \
                not cell.get('metadata', {}).get('jupyter', {}).get('source_hidden'):
            problems.append(f'{path} cell {i}: a solution that is not folded (metadata jupyter.source_hidden)')
        texts = [''.join(o.get('text', '')) for o in outputs if o.get('output_type') == 'stream']
        if any('\x1b' in text for text in texts):
            problems.append(f'{path} cell {i}: a committed output holds a terminal escape sequence')
    if path.parent.name != 'nbs' or not path.name[0].isdigit(): continue
    heads = [i for i, c in enumerate(cells) if c['cell_type'] == 'markdown' and ''.join(c['source']).startswith('## Exercises')]
    if not heads:
        problems.append(f'{path}: no `## Exercises` section'); continue
    section = cells[heads[0]:]
    count = sum(''.join(c['source']).count('\n### Exercise') + ''.join(c['source']).startswith('### Exercise')
                for c in section if c['cell_type'] == 'markdown')
    if not 3 <= count <= 5: problems.append(f'{path}: {count} exercises (3 to 5 wanted)')
    for cell in section:
        if cell['cell_type'] != 'code': continue
        for line in lines_of(cell):
            demo = '.judge(' in ''.join(cell['source']) and line.startswith('✗')
            if not (line.startswith('✓ correct:') or demo):
                problems.append(f'{path} exercise cell {cell.get("id")}: prints {line[:60]!r}, not a `✓ correct:` line')
print('\n'.join(problems) or 'notebooks: Colab install cells live, no paths outside the repository, exercises answer in one line')
sys.exit(1 if problems else 0)
