"""Build the course website into `doc_path` (settings.ini, `_docs/`): `python .ci/make_site.py`.

MkDocs with the Material theme renders the pages; mkdocs-jupyter renders each notebook with its committed outputs
(plots included) and never executes it. The MkDocs configuration is generated here, in a temporary folder, together
with a copy of every notebook prepared for the web:
- nbdev's directives (`#| export` ...) are dropped from the code and `#| hide` cells are left out, as nbdev's own
  docs do (the exercises' folded solutions stay off the site);
- links between notebooks (`07_sampling.ipynb`) point at their pages, and links to files elsewhere in the
  repository point at GitHub;
- LaTeX (`$...$`) becomes MathML, which browsers draw themselves, so that no MathJax is fetched from a CDN;
- widget outputs (lesson 07's sliders) need a running kernel: the page says so instead of loading a widget
  manager from a CDN;
- each lesson opens with links to its notebook on GitHub and to a launch in Google Colab.
The API reference is written from the exported functions' docments (`nanogpt/_modidx.py` lists every symbol).
After the build every page is checked: an internal link to a missing page or anchor, a missing image or an asset
fetched from another site makes the command fail.
"""
from __future__ import annotations

import argparse
import html
import importlib
import inspect
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from configparser import ConfigParser
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parent.parent
cfg = ConfigParser(delimiters=['='])
cfg.read(ROOT / 'settings.ini', encoding='utf-8')
cfg = cfg['DEFAULT']
NBS = ROOT / cfg['nbs_path']
GITHUB = cfg['git_url'].rstrip('/')  # https://github.com/USER/REPO
BRANCH = cfg.get('branch', 'main')
BASEURL = cfg.get('doc_baseurl', '/').rstrip('/')  # where GitHub Pages serves the site: /REPO
COLAB = f"https://colab.research.google.com/github/{cfg['user']}/{cfg['repo']}/blob/{BRANCH}/{cfg['nbs_path']}"
# The site's sections after the front page: Part 1 (build a GPT), Part 2 (use it), Part 3 (from GPT to chat), then the
# engine room (nbs/engine/).
PAGES = ('index', 'results')  # pages of their own, not lessons: the front page and the measured results
PART_2 = ('08_gpt2', '09_ddp', '11_export', '12_serving', '13_lora', '14_modern')
PART_3 = ('15_chat', '16_tasks', '17_align')  # the rest of the numbered lessons are Part 1
WIDGET_NOTE = ('<p class="admonition note">This output is an interactive widget: it appears when you run the '
               'notebook in JupyterLab (or Colab), where a kernel answers it.</p>')


def page_of(name: str) -> str:  # a notebook's stem, its path under nbs/ without .ipynb (`engine/00_errors`)
    "The site path of a notebook's page (use_directory_urls: `07_sampling/`; the front page is the site root)"
    return '' if name == 'index' else f'{name}/'


def up_from(name: str) -> str:  # the stem of a page
    "The relative URL from that page to the site root"
    return '../' * page_of(name).count('/')


def rel_link(src: str,  # the stem of the page the link is on
             dst: str) -> str:  # the stem of the page it points to
    "A relative URL from one notebook's page to another's"
    up = up_from(src)
    return up + page_of(dst) if page_of(dst) else up or './'


def folder_of(name: str) -> Path:  # a notebook's stem
    "The folder the notebook lies in, which its relative links start from"
    return (NBS / name).parent


MATH = re.compile(r'(?<![\\$])\$\$(.+?)\$\$|(?<![\\$\w])\$(?!\s)([^$\n]+?)(?<!\s)\$(?![\w$])', re.S)
CODE = re.compile(r'(```.*?```|`[^`\n]*`)', re.S)


def to_mathml(text: str) -> str:  # markdown
    "Markdown with `$...$` and `$$...$$` replaced by MathML (code spans and fences left alone)"
    from latex2mathml.converter import convert
    def sub(m):
        display = m.group(1) is not None
        return convert((m.group(1) if display else m.group(2)).strip(), display='block' if display else 'inline')
    return ''.join(part if i % 2 else MATH.sub(sub, part) for i, part in enumerate(CODE.split(text)))


LINK = re.compile(r'((?<!!)\[[^\]]*\]\(|<a[^>]*\shref=")([^)"\s]+)')  # links, not images
IMAGE = re.compile(r'(!\[[^\]]*\]\(|<img[^>]*\ssrc=")([^)"\s]+)')
IMAGES: set[Path] = set()  # images the notebooks show from files next to them, copied into the site


def fix_images(text: str,  # markdown
               name: str) -> str:  # the notebook's stem
    "Images from files in the notebooks' folder, relative to the page (a missing one stays missing for the check)"
    def sub(m):
        url = m.group(2)
        if urlsplit(url).scheme or url.startswith('/'): return m.group(0)
        image = (folder_of(name) / url).resolve()
        if not image.is_relative_to(NBS.resolve()): return m.group(0)  # outside nbs/: left for the check to find
        if image.is_file(): IMAGES.add(image.relative_to(NBS.resolve()))
        return m.group(1) + up_from(name) + image.relative_to(NBS.resolve()).as_posix()
    return IMAGE.sub(sub, text)


def fix_links(text: str,  # markdown
              name: str) -> str:  # the notebook's stem
    "Links to notebooks point at their pages; relative links to other repository files point at GitHub"
    def sub(m):
        url = m.group(2)
        parts = urlsplit(url)
        if parts.scheme or url.startswith(('#', 'mailto:')): return m.group(0)
        frag = f'#{parts.fragment}' if parts.fragment else ''
        path = Path(parts.path)
        target = (folder_of(name) / path).resolve()
        if path.suffix == '.ipynb' and target.is_relative_to(NBS.resolve()):
            return m.group(1) + rel_link(name, target.relative_to(NBS.resolve()).with_suffix('').as_posix()) + frag
        target = target.relative_to(ROOT)
        return m.group(1) + f'{GITHUB}/blob/{BRANCH}/{target.as_posix()}{frag}'
    return LINK.sub(sub, text)


def launch_cell(name: str) -> dict:  # the notebook's stem
    "A markdown cell with links to the notebook on GitHub and to a launch in Colab"
    nb_path = f"{cfg['nbs_path']}/{name}.ipynb"
    md = (f'<p><a class="md-button" href="{COLAB}/{name}.ipynb">Open in Colab</a> '
          f'<a class="md-button" href="{GITHUB}/blob/{BRANCH}/{nb_path}">The notebook on GitHub</a></p>')
    return {'cell_type': 'markdown', 'metadata': {}, 'source': md, 'id': 'site-launch'}


def heading_code_as_html(m: re.Match) -> str:  # a markdown heading line
    "The heading with its `code` spans as <code> elements"
    return re.sub(r'`([^`]+)`', lambda c: f'<code>{html.escape(c.group(1))}</code>', m.group(0))


DIRECTIVE = re.compile(r'^\s*#\|.*\n?', re.M)


def prepare(nb: dict,  # a notebook, as JSON
            name: str) -> dict:  # its stem
    "The notebook as the site shows it (see the module's docstring)"
    cells = []
    for cell in nb['cells']:
        src = ''.join(cell['source'])
        if cell['cell_type'] == 'code':
            if re.match(r'\s*#\|\s*hide\b', src): continue
            if re.search(r'^\s*#\|\s*echo:\s*false', src, re.M):  # only the output shows, as in the README
                cell['metadata'].setdefault('tags', []).append('remove_input')
            src = DIRECTIVE.sub('', src).strip('\n')
            if not src: continue
            for out in cell.get('outputs', []):
                if 'application/vnd.jupyter.widget-view+json' in out.get('data', {}):
                    out['data'] = {'text/html': WIDGET_NOTE}
                if 'text/markdown' in out.get('data', {}):  # tables a cell writes (results, index)
                    out['data']['text/markdown'] = fix_links(''.join(out['data']['text/markdown']), name)
        elif cell['cell_type'] == 'markdown':
            # code in a heading as HTML: mkdocs-jupyter's table of contents drops `code` spans from its anchors
            src = re.sub(r'^#{1,6} .*$', heading_code_as_html, src, flags=re.M)
            src = to_mathml(fix_links(fix_images(src, name), name))
        cell['source'] = src
        cells.append(cell)
    if name not in PAGES: cells.insert(1, launch_cell(name))
    nb['cells'] = cells
    nb['metadata'].pop('widgets', None)
    return nb


def md_escape(text: str) -> str:  # table cell text
    "Text safe inside a markdown table cell"
    return text.replace('|', '\\|').replace('\n', ' ')


def api_entry(qualname: str,  # `Class.method` or `function`
              obj,  # the object
              module: str) -> str:  # its module's file, relative to the repository
    "Markdown for one symbol: heading, source link, signature, docstring and a table of its parameters' docments"
    from fastcore.docments import docments
    lines = [f'### `{qualname}`', '']
    try: line = inspect.getsourcelines(inspect.unwrap(obj))[1]
    except (OSError, TypeError): line = None
    lines.append(f'[source]({GITHUB}/blob/{BRANCH}/{module}' + (f'#L{line}' if line else '') + ')')
    fn = obj.__init__ if inspect.isclass(obj) else obj
    try: sig = inspect.signature(fn)
    except (TypeError, ValueError): sig = None
    if sig is not None:
        params = [p for p in sig.parameters.values() if p.name != 'self' or not inspect.isclass(obj)]
        params = [p for p in params if p.name != 'self']
        sig = re.sub(r"(: |-> )'([^']*)'", r'\1\2', str(sig.replace(parameters=params)))  # postponed annotations
        lines += ['', '```python', f'{qualname}{sig}', '```']
    if obj.__doc__: lines += ['', inspect.cleandoc(obj.__doc__)]
    try: docs = docments(fn, full=True)
    except Exception: docs = {}
    rows = [(n, d) for n, d in docs.items() if n != 'self' and (n != 'return' or d['docment'])]
    if any(d['docment'] for _, d in rows):
        lines += ['', '| Parameter | Type | Default | Details |', '|---|---|---|---|']
        for n, d in rows:
            anno = '' if d['anno'] is inspect._empty else getattr(d['anno'], '__name__', str(d['anno']))
            default = '' if d['default'] is inspect._empty else f'`{d["default"]!r}`'
            lines.append(f"| {'**returns**' if n == 'return' else f'`{n}`'} | {md_escape(anno)} | "
                         f"{md_escape(default)} | {md_escape(d['docment'] or '')} |")
    return '\n'.join(lines) + '\n'


def api_pages(docs: Path) -> list[tuple[str, str]]:  # the docs folder
    "One markdown page per module from `_modidx`; returns (title, path) for the navigation"
    sys.path.insert(0, str(ROOT))
    modidx = importlib.import_module(f"{cfg['lib_path']}._modidx").d
    nav = []
    (docs / 'api').mkdir()
    for modname, syms in sorted(modidx['syms'].items()):
        mod = importlib.import_module(modname)
        nb_name = next((stem for stem in nb_stems() if default_exp(stem) == modname.split('.', 1)[1]), None)
        text = [f'# `{modname}`', '']
        if mod.__doc__: text += [inspect.cleandoc(mod.__doc__), '']
        if nb_name: text += [f'Taught in [{nb_name}](../../{page_of(nb_name)}).', '']
        for full, (_, path) in sorted(syms.items(), key=lambda kv: kv[0]):
            qual = full[len(modname) + 1:]
            obj = mod
            try:
                for part in qual.split('.'): obj = getattr(obj, part)
            except AttributeError: continue
            text.append(api_entry(qual, obj, path))
        page = f"api/{modname.split('.', 1)[1]}.md"
        (docs / page).write_text('\n'.join(text), encoding='utf-8')
        nav.append((modname, page))
    return nav


def nb_stems() -> list[str]:
    "The notebooks' stems (`07_sampling`, `engine/00_errors`), sorted: lessons are numbered, so this is course order"
    return sorted(p.relative_to(NBS).with_suffix('').as_posix() for p in NBS.rglob('*.ipynb')
                  if '.ipynb_checkpoints' not in p.parts)


def section_of(stem: str) -> str:  # a notebook's stem
    "Where the site lists a notebook: Part 1, 2 or 3, or the engine room"
    if stem.startswith('engine/'): return 'The engine room'
    if stem in PART_3: return 'Part 3: from GPT to chat'
    return 'Part 2: use it' if stem in PART_2 else 'Part 1: build a GPT'


def default_exp(stem: str) -> str | None:  # a notebook's stem
    "The module a notebook exports to (its `#| default_exp`), if any"
    nb = json.loads((NBS / f'{stem}.ipynb').read_text(encoding='utf-8'))
    for cell in nb['cells']:
        m = re.search(r'^#\|\s*default_exp\s+(\S+)', ''.join(cell['source']), re.M)
        if m: return m.group(1)
    return None


def title_of(nb: dict) -> str:  # a notebook
    "The notebook's H1 title, as plain text"
    for cell in nb['cells']:
        m = re.search(r'^#\s+(.+)$', ''.join(cell['source']), re.M)
        if cell['cell_type'] == 'markdown' and m: return m.group(1).replace('`', '').strip()
    return 'Untitled'


def write_config(work: Path,  # the temporary folder
                 site: Path,  # where the site is built
                 nav: list) -> Path:  # the navigation, as MkDocs wants it
    "The MkDocs configuration (YAML is a superset of JSON, so json.dumps writes it)"
    config = {
        'site_name': cfg['title'], 'site_description': cfg['description'],
        'site_url': cfg['doc_host'].rstrip('/') + BASEURL + '/',
        'repo_url': GITHUB, 'edit_uri': f'blob/{BRANCH}/{cfg["nbs_path"]}/',
        'docs_dir': str(work / 'docs'), 'site_dir': str(site), 'use_directory_urls': True,
        'strict': True,  # any warning (a page missing from the nav, an unknown link in markdown) fails the build
        'validation': {'links': {'not_found': 'warn', 'absolute_links': 'warn', 'unrecognized_links': 'warn'},
                       'anchors': 'warn'},
        # font: false keeps Google Fonts (a CDN) out: the site renders offline with system fonts
        'theme': {'name': 'material', 'font': False, 'features': ['navigation.sections', 'navigation.footer',
                                                                 'search.highlight', 'content.code.copy']},
        'plugins': ['search', {'mkdocs-jupyter': {'execute': False, 'include_source': True,
                                                  'include_requirejs': False, 'no_prompt': True,
                                                  'remove_tag_config': {'remove_input_tags': ['remove_input']}}}],
        'markdown_extensions': ['tables', 'admonition', 'attr_list', 'md_in_html', 'toc',
                                {'pymdownx.highlight': {'use_pygments': True}}, 'pymdownx.superfences'],
        'nav': nav,
    }
    path = work / 'mkdocs.yml'
    path.write_text(json.dumps(config, indent=1), encoding='utf-8')
    return path


class Refs(HTMLParser):
    "Collects a page's ids and the URLs its links, images, scripts and stylesheets point at"
    def __init__(self):
        super().__init__()
        self.ids, self.refs = set(), []
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get('id'): self.ids.add(a['id'])
        if tag == 'a' and a.get('name'): self.ids.add(a['name'])
        for attr in ('href', 'src'):
            if a.get(attr) is not None: self.refs.append((tag, a.get('rel') or '', a[attr]))


def check_site(site: Path) -> list[str]:  # the built site
    "Every internal link and image resolves (file, and anchor where one is named); nothing loads from another site"
    pages = {p: Refs() for p in site.rglob('*.html')}
    for path, refs in pages.items(): refs.feed(path.read_text(encoding='utf-8'))
    problems = []
    for path, refs in pages.items():
        where = path.relative_to(site)
        for tag, rel, url in refs.refs:
            parts = urlsplit(url)
            if parts.scheme in ('data', 'mailto', 'javascript'): continue
            if parts.scheme or url.startswith('//'):
                # a script, stylesheet or image from another site would not load offline (nor without a network)
                if tag in ('script', 'img', 'iframe') or (tag == 'link' and 'stylesheet' in rel):
                    problems.append(f'{where}: <{tag}> from another site: {url}')
                continue
            if parts.path.startswith('/'):  # absolute, under the site's base URL (404.html links so)
                target = site / unquote(parts.path).removeprefix(BASEURL).lstrip('/')
            else: target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            if target.is_dir(): target = target / 'index.html'
            if not target.exists():
                problems.append(f'{where}: <{tag}> points at a missing file: {url}')
            elif parts.fragment and target.suffix == '.html' and unquote(parts.fragment) not in pages[target].ids:
                problems.append(f'{where}: link to a missing anchor: {url}')
    return problems


CDN_SCRIPT = re.compile(r'<script src="https://cdnjs\.cloudflare\.com/ajax/libs/mathjax/[^"]*">\s*</script>')


def build(out: Path) -> int:  # where the site goes
    "Prepare the notebooks and API pages, run MkDocs, check the result; the number of problems found"
    start = time.time()
    with tempfile.TemporaryDirectory(prefix='nanogpt-site-') as tmp:
        work = Path(tmp)
        docs = work / 'docs'
        docs.mkdir()
        sections = {'Part 1: build a GPT': [], 'Part 2: use it': [], 'Part 3: from GPT to chat': [],
                    'The engine room': []}
        for stem in nb_stems():
            nb = json.loads((NBS / f'{stem}.ipynb').read_text(encoding='utf-8'))
            (docs / f'{stem}.ipynb').parent.mkdir(parents=True, exist_ok=True)
            (docs / f'{stem}.ipynb').write_text(json.dumps(prepare(nb, stem)), encoding='utf-8')
            if stem not in PAGES: sections[section_of(stem)].append({title_of(nb): f'{stem}.ipynb'})
        for image in IMAGES:
            (docs / image).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(NBS / image, docs / image)
        nav = [{'Home': 'index.ipynb'}, *({name: pages} for name, pages in sections.items())]
        nav.append({'Results': 'results.ipynb'})
        nav.append({'API reference': [{title: page} for title, page in api_pages(docs)]})
        config = write_config(work, out, nav)
        if out.exists(): shutil.rmtree(out)
        run = subprocess.run([sys.executable, '-m', 'mkdocs', 'build', '--strict', '-q', '-f', str(config)],
                             cwd=work, capture_output=True, text=True)
        if run.returncode:
            print(run.stdout, run.stderr, sep='\n')
            print('mkdocs build failed')
            return 1
    for page in out.rglob('*.html'):
        # nbconvert's template always loads MathJax from a CDN; the math is MathML already, so the tag goes
        text = page.read_text(encoding='utf-8')
        page.write_text(CDN_SCRIPT.sub('', text), encoding='utf-8')
    problems = check_site(out)
    for p in problems: print(p)
    n_pages = len(list(out.rglob('index.html')))
    print(f'site: {n_pages} pages in {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}, '
          f'{len(problems)} problems, {time.time() - start:.0f} s')
    return len(problems)


if __name__ == '__main__':
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--out', type=Path, default=ROOT / cfg['doc_path'], help='where to build (default: doc_path)')
    sys.exit(1 if build(parser.parse_args().out.resolve()) else 0)
