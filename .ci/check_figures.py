"""Figures cannot drift: every number a notebook's prose quotes must come from that notebook, either
from one of its outputs or from its code (a constant the code sets and the prose describes).
Usual formatting differences pass: thousands separators (1,075 = 1075), a percentage for a printed
fraction (0.451 = 45.1%), and rounding of a printed value to the prose's decimals (1.8339 = 1.834).
`results.ipynb` collects the course's figures, so its numbers are checked against every notebook.
A figure quoted from elsewhere (a paper, nanoGPT's README) goes on `.ci/figures_cited.txt`, one line
`notebook | figure | where it comes from`; a cell whose every figure comes from one measurement made
outside the notebook names it in the prose and carries `<!-- figures: SOURCE -->`.
Small integers (below 100) and years are not figures.
Inline `code`, $math$, URLs and link targets are skipped. Prints each problem; exits 1 if any.
Usage: python .ci/check_figures.py [NOTEBOOK ...]  (default: every notebook in nbs/)
"""
import json
import re
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

root = Path(__file__).resolve().parent.parent
nbs = root / 'nbs'
# code, math, link targets, URLs, tags, and names that end in a number (AVX-512, SHA-256)
skipped = re.compile(r'`[^`]*`|\$\$.*?\$\$|\$[^$\n]*\$|\]\([^)]*\)|https?://\S+|<[^>]*>'
                     r'|\b[A-Z]{2,}[A-Za-z]*-\d+\b', re.S)
heading_number = re.compile(r'^#+ *\d+[\d.]*', re.M)
figure = re.compile(r'(?<![\w.,])\d{1,3}(?:,\d{3})+(?:\.\d+)?%?(?![\w,]\d)'  # 1,075 or 1,075.5
                    r'|(?<![\w.,])\d+(?:\.\d+)?%?(?![\w.]\d)')  # 1075, 1.834 or 45.1%
number = re.compile(r'\d+(?:\.\d+)?')
cited_cell = re.compile(r'<!-- figures: [^<>]*\w[^<>]*-->')  # the cell's figures: from SOURCE


def cells(path):
    "The notebook's cells."
    return json.loads(path.read_text())['cells']


def source_numbers(path):
    "Every number in the notebook's outputs and code cells, as text, separators removed."
    texts = []
    for cell in cells(path):
        if cell['cell_type'] == 'code': texts.append(''.join(cell['source']))
        for out in cell.get('outputs', []):
            texts.append(''.join(out.get('text', '')))
            texts += [''.join(v) for k, v in out.get('data', {}).items() if k.startswith('text/')]
    text = re.sub(r'(?<=\d)[,_](?=\d{3})', '', '\n'.join(texts))
    return set(number.findall(text)) | set(re.findall(r'\d+(?:\.\d+)?e[-+]?\d+', text))


def rounded_forms(found):
    "Each found number, rounded to fewer decimals and as a percentage: prose may quote it shorter."
    forms = set(found)
    for text in found:
        try: value = float(text)
        except ValueError: continue
        if not value < 1e15: continue
        for scale, limit in ((1, 6), (100, 4)):
            exact = Decimal(text) * scale  # half up, as a reader rounds 3.15 to 3.2
            for decimals in range(limit + 1):
                forms.add(f'{value * scale:.{decimals}f}')
                forms.add(str(exact.quantize(Decimal(1).scaleb(-decimals), ROUND_HALF_UP)))
        if value == int(value): forms.add(str(int(value)))
    return forms


def matches(quoted, forms):
    "Whether a figure quoted in prose is one of the source's forms."
    plain = quoted.replace(',', '').rstrip('%')
    if plain in forms: return True
    return '.' in plain and plain.rstrip('0').rstrip('.') in forms


def not_a_figure(quoted):
    "Small integers and years are not figures."
    plain = quoted.replace(',', '')
    if '.' in plain or '%' in plain: return False
    return int(plain) < 100 or 1900 <= int(plain) <= 2100


def allowlist():
    "The figures quoted from elsewhere, as (notebook, figure) pairs."
    lines = (root / '.ci' / 'figures_cited.txt').read_text().splitlines()
    rows = [[part.strip() for part in line.split('|')] for line in lines
            if line.strip() and not line.startswith('#')]
    return {(row[0], row[1]) for row in rows}


def problems_in(path, forms, cited):
    "Each figure in the notebook's markdown that is neither in its sources nor cited."
    name = path.relative_to(nbs).as_posix()
    problems = []
    for index, cell in enumerate(cells(path)):
        if cell['cell_type'] != 'markdown' or cited_cell.search(''.join(cell['source'])): continue
        prose = skipped.sub(' ', heading_number.sub('', ''.join(cell['source'])))
        for match in figure.finditer(prose):
            quoted = match.group(0)
            if not_a_figure(quoted) or matches(quoted, forms) or (name, quoted) in cited: continue
            context = ' '.join(prose[max(0, match.start() - 50):match.end() + 30].split())
            problems.append(f'{name} cell {index}: {quoted!r} ...{context}...')
    return problems


paths = [Path(p).resolve() for p in sys.argv[1:]] or sorted(nbs.glob('*.ipynb')) + sorted(
    nbs.glob('engine/*.ipynb'))
all_forms = rounded_forms(set().union(*(source_numbers(p) for p in sorted(nbs.glob('**/*.ipynb')))))
cited = allowlist()
problems = []
for path in paths:
    own = all_forms if path.name == 'results.ipynb' else rounded_forms(source_numbers(path))
    problems += problems_in(path, own, cited)
if problems:
    print(f'figures in prose found in no output or code of their notebook: {len(problems)} '
          '(quote the output, or cite the source in .ci/figures_cited.txt)')
    print('\n'.join('  ' + p for p in problems))
    sys.exit(1)
print(f'every figure in the prose of {len(paths)} notebooks comes from its outputs, its code '
      'or .ci/figures_cited.txt')
