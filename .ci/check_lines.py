"""Every line of the nanogpt package is at most 100 characters, except what nbdev generates and no notebook
can shorten: `_modidx.py`, and the `__all__` list nbdev 2 wraps at a fixed 120 (`nbdev/maker.py`, no setting).
Prints each offending line; exits 1 if there is any.
"""
import re
import sys
from pathlib import Path

WIDTH = 100
package = Path(__file__).resolve().parent.parent / 'nanogpt'
generated = re.compile(r'^__all__ = \[.*?\]$', re.M | re.S)
problems = []
for path in sorted(package.glob('*.py')):
    if path.name == '_modidx.py': continue
    text = path.read_text()
    text = generated.sub(lambda m: '\n' * m.group(0).count('\n'), text, count=1)  # line numbers kept
    problems += [f'{path.name}:{n} ({len(line)})' for n, line in enumerate(text.splitlines(), 1)
                 if len(line) > WIDTH]
if problems:
    print(f'{len(problems)} lines over {WIDTH} characters (wrap them in the notebook):')
    print('\n'.join('  ' + p for p in problems))
    sys.exit(1)
print(f'every line of the package is at most {WIDTH} characters (nbdev\'s __all__ and _modidx aside)')
