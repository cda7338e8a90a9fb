"""Rewrap the `__all__` list nbdev writes at the top of each module to lines of at most 100 characters.

nbdev 2 wraps `__all__` at a fixed 120 characters (`nbdev/maker.py`, no setting), above the house limit
of 100 that ruff checks. Run after `nbdev_export` (`.ci/run` does); it changes nothing else and
running it twice changes nothing. `--check` only reports modules whose `__all__` needs rewrapping.
"""
import ast
import re
import sys
from pathlib import Path
from textwrap import TextWrapper

WIDTH = 100
package = Path(__file__).resolve().parent.parent / 'nanogpt'
block = re.compile(r'^__all__ = \[.*?\]$', re.M | re.S)
wrapper = TextWrapper(width=WIDTH, subsequent_indent=' ' * 11, break_long_words=False)


def rewrapped(text: str) -> str:
    "`text` with its `__all__` block wrapped at WIDTH"
    def wrap(match):
        names = ast.literal_eval(match.group(0).split('=', 1)[1].strip())
        return '\n'.join(wrapper.wrap(f'__all__ = {names}'))
    return block.sub(wrap, text, count=1)


stale = []
for path in sorted(package.glob('*.py')):
    if path.name == '_modidx.py': continue
    text = path.read_text()
    new = rewrapped(text)
    if new == text: continue
    stale.append(path.name)
    if '--check' not in sys.argv: path.write_text(new)
if '--check' in sys.argv and stale:
    print(f'__all__ not wrapped at {WIDTH} in {", ".join(stale)}: run python .ci/wrap_all.py after nbdev_export')
    sys.exit(1)
print(f'__all__ wrapped at {WIDTH} characters' + (f' (rewrapped {len(stale)} modules)' if stale else ''))
