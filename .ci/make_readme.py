"""Generate README.md from nbs/index.ipynb, offline (no Quarto): `python .ci/make_readme.py`.

Markdown cells are copied; code cells become fenced Python with their text outputs below; cells marked
`#| hide` are left out, `#| echo: false` shows only the output. Relative links to notebooks are made
relative to the repository root. `--check` exits 1 when README.md differs from what would be generated.
"""
import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEADER = '<!-- Generated from nbs/index.ipynb by `python .ci/make_readme.py`: edit the notebook, not this file. -->\n\n'


def directives(source: str) -> dict:
    "The `#| key: value` lines at the top of a cell"
    found = {}
    for line in source.splitlines():
        m = re.match(r'\s*#\|\s*([\w-]+):?\s*(.*)', line)
        if not m: break
        found[m.group(1)] = m.group(2).strip()
    return found


def strip_directives(source: str) -> str:
    return '\n'.join(l for l in source.splitlines() if not re.match(r'\s*#\|', l)).strip('\n')


def fix_links(markdown: str) -> str:
    "Links to notebooks and files relative to nbs/ become relative to the repository root"
    return re.sub(r'\]\((?!https?:|#|/|\.\./)([^)\s]+\.ipynb)\)', r'](nbs/\1)', markdown).replace('](../', '](')


def output_text(output: dict) -> tuple[str, str] | None:
    "(kind, text) of an output worth showing: markdown as is, plain text fenced"
    if output.get('output_type') == 'stream': return 'text', ''.join(output['text'])
    data = output.get('data', {})
    if 'text/markdown' in data: return 'markdown', ''.join(data['text/markdown'])
    if 'text/plain' in data and not any(k.startswith('image/') for k in data): return 'text', ''.join(data['text/plain'])
    return None


def render(nb: dict) -> str:
    parts = []
    for cell in nb['cells']:
        source = ''.join(cell['source'])
        direc = directives(source)
        if 'hide' in direc or 'default_exp' in direc: continue
        if cell['cell_type'] == 'markdown':
            parts.append(fix_links(source.strip()))
            continue
        if cell['cell_type'] != 'code': continue
        code = strip_directives(source)
        if code and direc.get('echo', '').lower() != 'false': parts.append(f'```python\n{code}\n```')
        for output in cell.get('outputs', []):
            shown = output_text(output)
            if shown is None: continue
            kind, text = shown
            parts.append(text.strip() if kind == 'markdown' else f'```\n{text.rstrip()}\n```')
    return HEADER + '\n\n'.join(p for p in parts if p) + '\n'


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--check', action='store_true', help='fail if README.md is stale instead of writing it')
    args = parser.parse_args()
    readme = ROOT / 'README.md'
    text = render(json.loads((ROOT / 'nbs' / 'index.ipynb').read_text(encoding='utf-8')))
    if args.check:
        if not readme.exists() or readme.read_text(encoding='utf-8') != text:
            print('README.md is stale: run `python .ci/make_readme.py` and commit it.', file=sys.stderr)
            sys.exit(1)
        print('README.md is up to date.')
        return
    readme.write_text(text, encoding='utf-8')
    print(f'wrote {readme}')


if __name__ == '__main__':
    main()
