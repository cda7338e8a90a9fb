"""The course in a real browser: headless Chromium (Debian's `chromium`) driven by Playwright.

`python .ci/browser_test.py` (after `python .ci/make_site.py`) checks:
1. the site in `_docs/`: every page loads without console errors, every image on it renders, and search finds a word;
2. JupyterLab, as a learner uses it, on a copy of the notebooks (JupyterLab autosaves; the committed files are never
   opened): lesson 07 runs to its end, the sliders appear as widgets, moving the temperature slider with the keyboard
   regenerates the sample, and a second Run All in the same kernel ends without an error, as it does for lesson 06
   (a learner who runs a lesson again); lesson 04 runs from cleared outputs and its attention maps render as images; and opening a
   lesson and saving it leaves the file byte for byte as committed, with no step beyond the README's install (the
   package's Jupyter Server extension cleans each notebook as it is saved);
3. the playground's chat view, served by `nanogpt serve` from a chat model built without training (the talk
   notebook's `toy_chat_model`, which answers "Hi"): two messages sent, each answer streamed into the page, the
   second request carrying the whole conversation.
Kernels run with IN_TEST=1, so the lessons train their tiny configurations. Screenshots go to a folder printed at
the end. Servers started here are stopped by process id; everything runs under one deadline.
Without Chromium the test is skipped, unless NANOGPT_REQUIRE_BROWSER is set (CI sets it).
"""
from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from configparser import ConfigParser
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
cfg = ConfigParser(delimiters=['='])
cfg.read(ROOT / 'settings.ini', encoding='utf-8')
SITE = ROOT / cfg['DEFAULT']['doc_path']
DEADLINE_S = 780  # the whole test; each wait below has its own, shorter, limit
SHOTS = Path(os.environ.get('NANOGPT_SCREENSHOTS') or tempfile.mkdtemp(prefix='nanogpt-screenshots-'))


def free_port() -> int:
    "A TCP port on 127.0.0.1 that nothing listens on"
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


@contextmanager
def server(cmd: list,  # the command that starts it
           url: str,  # a URL that answers once it is up
           log: Path,  # where its output goes
           **kwargs):  # passed to Popen (env, cwd)
    "Start a server, wait until `url` answers, and stop it by process id (its whole process group) afterwards"
    with open(log, 'w') as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True, **kwargs)
    try:
        for _ in range(240):
            if proc.poll() is not None: raise RuntimeError(f'{cmd[0]} exited: see {log}')
            try:
                urllib.request.urlopen(url, timeout=2)
                break
            except OSError: time.sleep(0.25)
        else: raise TimeoutError(f'{url} did not answer within 60 s')
        yield proc
    finally:
        try: os.killpg(proc.pid, signal.SIGTERM)  # the server and the kernels it started
        except ProcessLookupError: pass
        try: proc.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)


def site_pages() -> list[str]:
    "Every page of the built site, as a path under its root"
    return sorted(str(p.parent.relative_to(SITE)) + '/' if p.parent != SITE else ''
                  for p in SITE.rglob('index.html'))


def check_site(browser) -> list[str]:  # a Playwright browser
    "Load every page; the console errors and unrendered images found, as messages"
    port = free_port()
    problems = []
    with server([sys.executable, '-m', 'http.server', str(port), '--bind', '127.0.0.1', '--directory', str(SITE)],
                f'http://127.0.0.1:{port}/', SHOTS / 'site-server.log'):
        page = browser.new_page(viewport={'width': 1280, 'height': 900})
        errors = []
        def on_console(msg):
            # Material's header asks GitHub's API for the repository's stars and latest release (api.github.com):
            # an extra that fails without a network, as here, and is not part of the page; every other error counts
            if msg.type == 'error' and not msg.location.get('url', '').startswith('https://api.github.com/repos/'):
                errors.append(f"{msg.text} ({msg.location.get('url')})")
        page.on('console', on_console)
        page.on('pageerror', lambda exc: errors.append(str(exc)))
        pages = site_pages()
        for path in pages:
            errors.clear()
            page.goto(f'http://127.0.0.1:{port}/{path}', wait_until='load', timeout=30_000)
            images = page.eval_on_selector_all('img', '''imgs => imgs.map(i => {
                i.scrollIntoView();
                return [(i.getAttribute('src') || '').slice(0, 60), i.complete && i.naturalWidth > 0]; })''')
            broken = [src for src, ok in images if not ok]
            problems += [f'/{path}: console error: {e}' for e in errors]
            problems += [f'/{path}: image does not render: {src}' for src in broken]
            if path == '07_sampling/': page.screenshot(path=str(SHOTS / 'site-07_sampling.png'))
        print(f'site: {len(pages)} pages loaded, images checked')
        # Search: the index is built into the site and searched in the browser, with no server behind it
        page.goto(f'http://127.0.0.1:{port}/', wait_until='load')
        page.screenshot(path=str(SHOTS / 'site-home.png'))
        page.keyboard.press('s')  # Material's shortcut for the search box
        page.keyboard.type('temperature')
        try:
            page.wait_for_selector('.md-search-result__item', timeout=15_000)
            hits = page.locator('.md-search-result__item').count()
            print(f'site: search for "temperature" lists {hits} pages')
        except Exception: problems.append('search for "temperature" found nothing')
        page.screenshot(path=str(SHOTS / 'site-search.png'))
        page.close()
    return problems


def notebook_copy(work: Path) -> Path:  # an empty folder
    "The notebooks and the data they read, copied, with settings.ini so that nbdev finds its configuration"
    shutil.copytree(ROOT / 'nbs', work / 'nbs', ignore=shutil.ignore_patterns('.ipynb_checkpoints', 'out*'))
    shutil.copy(ROOT / 'settings.ini', work / 'settings.ini')
    from nanogpt.data import tiny_shakespeare  # the course's copy, the offline one, or a download
    tiny_shakespeare(work / 'data', src=tiny_shakespeare(ROOT / 'data'))
    return work / 'nbs'


def open_notebook(page, base: str, name: str):  # a page, the server's URL with its token, a notebook stem
    "Open a notebook in JupyterLab and wait until its kernel is idle"
    page.goto(f'{base[0]}/lab/tree/nbs/{name}.ipynb?token={base[1]}', wait_until='load', timeout=60_000)
    page.wait_for_selector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell', timeout=60_000)
    # the kernel started and connected: the status bar reads "Python 3 (ipykernel) | Idle" (cells run before that
    # are dropped, not queued)
    page.wait_for_function('() => [...document.querySelectorAll("#jp-main-statusbar .jp-StatusBar-TextItem")]'
                           '.some(e => / \\| Idle$/.test(e.textContent))', timeout=90_000)
    page.wait_for_timeout(500)


def menu(page, *path: str):  # a page, the labels to click: a menu of the menu bar, then its item
    "Run a JupyterLab command from the menu bar, as a learner does (e.g. Run > Run All Cells)"
    page.keyboard.press('Escape')
    page.locator('.lm-MenuBar-itemLabel', has_text=re.compile(f'^{re.escape(path[0])}$')).click()
    for label in path[1:]:
        page.locator('.lm-Menu:visible .lm-Menu-itemLabel', has_text=re.compile(f'^{re.escape(label)}$')).click()


def run_all(page):  # a page showing a notebook
    """Run > Run All Cells, until the run has visibly started: on a loaded machine JupyterLab now and then drops a run
    asked for just after the kernel connected (the cells stay `[ ]`), so ask again, at most three times"""
    started = r'''() => [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-InputPrompt')].some(
        p => /\[(\*|\d+)\]/.test(p.textContent))'''
    for attempt in range(3):
        menu(page, 'Run', 'Run All Cells')
        try:
            page.wait_for_function(started, timeout=20_000)
            return
        except Exception: print(f'  Run All Cells did not start (attempt {attempt + 1}); asking again')
    raise AssertionError('Run All Cells never started a cell')


def wait_run_all(page, timeout_s: float, after: int = 0):  # a notebook's page, the most seconds, the last count before
    "Wait until every code cell ran (none shows `[*]`, the last is numbered above `after`); a traceback fails at once"
    state = page.wait_for_function(r'''(after) => {
        const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
        const error = [...panel.querySelectorAll('.jp-OutputArea-output')]
            .find(o => o.textContent.includes('Traceback (most recent call last)'));
        if (error) return 'error: ' + error.textContent.slice(-1500);
        // a cell whose input is folded (a hidden proof) shows no prompt: read the prompts a learner sees
        const prompts = [...panel.querySelectorAll('.jp-CodeCell .jp-InputPrompt')]
            .filter(p => p.getClientRects().length && p.textContent.trim()).map(p => p.textContent);
        const last = (prompts[prompts.length - 1] || '').match(/\[(\d+)\]/);
        return prompts.length && !prompts.some(p => p.includes('*')) && last && parseInt(last[1]) > after
            && 'done';
    }''', arg=after, timeout=timeout_s * 1000).json_value()
    assert state == 'done', state
    # folded cells after the last visible one run in a moment; then the kernel is idle and no output is a traceback
    page.wait_for_function('() => [...document.querySelectorAll("#jp-main-statusbar .jp-StatusBar-TextItem")]'
                           '.some(e => / \\| Idle$/.test(e.textContent))', timeout=30_000)
    page.wait_for_timeout(1000)
    errors = page.locator('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea-output', has_text='Traceback')
    assert errors.count() == 0, errors.first.inner_text()[-1500:]


def check_sliders(page, base):  # a page, the server's URL and token
    "Lesson 07: run all, find the six sliders, move temperature with the keyboard, see the sample change"
    open_notebook(page, base, '07_sampling')
    run_all(page)
    wait_run_all(page, 240)
    interact = page.locator('.widget-interact').last
    interact.wait_for(timeout=30_000)
    sliders = interact.locator('.widget-slider')
    assert sliders.count() == 6, f'{sliders.count()} sliders rendered, 6 expected'
    sample = interact.locator('.widget-output')
    page.wait_for_function('el => el.innerText.includes("ROMEO")', arg=sample.element_handle(), timeout=30_000)
    before = sample.inner_text()
    temperature = sliders.filter(has_text='temperature')
    temperature.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / 'jupyterlab-07-sliders-before.png'))
    readout = temperature.locator('.widget-readout')
    value_before = readout.inner_text()
    temperature.locator('.noUi-handle').focus()
    for _ in range(8): page.keyboard.press('ArrowRight')  # 0.80 -> 1.20 in steps of 0.05; regenerates on release
    page.wait_for_function('([el, old]) => el.innerText.includes("ROMEO") && el.innerText !== old',
                           arg=[sample.element_handle(), before], timeout=60_000)
    after = sample.inner_text()
    page.wait_for_timeout(500)
    temperature.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / 'jupyterlab-07-sliders-after.png'))
    print(f'jupyterlab 07: 6 sliders; temperature {value_before} -> {readout.inner_text()} changed the sample '
          f'({before[:40]!r}... -> {after[:40]!r}...)')


def last_count(page) -> int:  # a page showing a notebook
    "The execution count of the last code cell a learner sees numbered (0: none)"
    return page.evaluate(r'''() => {
        const prompts = [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell .jp-InputPrompt')]
            .filter(p => p.getClientRects().length && p.textContent.trim());
        const last = (prompts[prompts.length - 1] || {textContent: ''}).textContent.match(/\[(\d+)\]/);
        return last ? parseInt(last[1]) : 0;
    }''')


def run_again(page, name: str, timeout_s: float):  # a page showing a lesson that ran, its stem, the most seconds
    "Run > Run All Cells once more in the same kernel, as a learner who runs the lesson again: no error either"
    first = last_count(page)
    menu(page, 'Run', 'Run All Cells')
    wait_run_all(page, timeout_s, after=first)
    print(f'jupyterlab {name}: ran a second time in the same kernel without an error '
          f'(its last cell [{first}], then [{last_count(page)}])')


def check_rerun(page, base, name: str, timeout_s: float):  # a page, the server's URL and token, a lesson
    "A lesson run top to bottom twice in one kernel"
    open_notebook(page, base, name)
    run_all(page)
    wait_run_all(page, timeout_s)
    run_again(page, name, timeout_s)


def check_plot(page, base):  # a page, the server's URL and token
    "Lesson 04: clear the committed outputs, run all, and see the attention maps render as images"
    open_notebook(page, base, '04_attention')
    menu(page, 'Edit', 'Clear Outputs of All Cells')
    panel = '.jp-NotebookPanel:not(.lm-mod-hidden)'
    page.wait_for_function(f'() => !document.querySelector("{panel} .jp-RenderedImage img")', timeout=10_000)
    run_all(page)
    wait_run_all(page, 120)
    images = page.locator(f'{panel} .jp-RenderedImage img')
    images.first.wait_for(timeout=30_000)
    sizes = images.evaluate_all('imgs => imgs.map(i => [i.complete, i.naturalWidth, i.naturalHeight])')
    assert sizes and all(ok and w > 0 for ok, w, h in sizes), sizes
    images.last.scroll_into_view_if_needed()  # the attention maps of a trained head, at the end of the lesson
    page.screenshot(path=str(SHOTS / 'jupyterlab-04-attention-plot.png'))
    print(f'jupyterlab 04: {len(sizes)} plots rendered after a fresh run (first {sizes[0][1]}x{sizes[0][2]} px)')


def check_unmodified(page, base, nbs: Path):  # a page, the server's URL and token, the copied notebooks
    "Open two lessons, let the kernel start, scroll, save: the files must not change (the package's hook cleans them)"
    for name in ('03_bigram', '06_training'):
        before = (nbs / f'{name}.ipynb').read_bytes()
        open_notebook(page, base, name)
        page.mouse.wheel(0, 20_000)
        page.wait_for_timeout(1000)
        menu(page, 'File', 'Save Notebook')
        page.wait_for_function('() => !document.querySelector(".lm-TabBar-tab.lm-mod-current.jp-mod-dirty")',
                               timeout=15_000)
        after = (nbs / f'{name}.ipynb').read_bytes()
        assert after == before, f'saving {name} unchanged rewrote it: {len(before)} -> {len(after)} bytes'
        print(f'jupyterlab {name}: opened, scrolled and saved, the file is unchanged')


def check_jupyterlab(browser):  # a Playwright browser
    "Start JupyterLab on a copy of the notebooks and run the checks above (lessons 06 and 07 run twice)"
    with tempfile.TemporaryDirectory(prefix='nanogpt-lab-') as tmp:
        work = Path(tmp)
        nbs = notebook_copy(work)
        port, token = free_port(), secrets.token_hex(16)
        env = dict(os.environ, IN_TEST='1', OMP_NUM_THREADS='1', JUPYTER_CONFIG_DIR=str(work / '.jupyter'),
                   JUPYTER_RUNTIME_DIR=str(work / '.runtime'), MPLBACKEND='module://matplotlib_inline.backend_inline')
        cmd = [sys.executable, '-m', 'jupyterlab', '--no-browser', '--allow-root', '--ip=127.0.0.1', f'--port={port}',
               '--ServerApp.port_retries=0', f'--IdentityProvider.token={token}', f'--ServerApp.root_dir={work}',
               f'--LabApp.user_settings_dir={work}/.lab-settings', f'--LabApp.workspaces_dir={work}/.lab-workspaces']
        # no pop-up asking about Jupyter's news over the outputs
        news = work / '.lab-settings' / '@jupyterlab' / 'apputils-extension' / 'notification.jupyterlab-settings'
        news.parent.mkdir(parents=True)
        news.write_text(json.dumps({'fetchNews': 'false', 'checkForUpdates': False}))
        # every cell in the page, not only those in view, so that prompts and outputs can be read
        windowing = work / '.lab-settings' / '@jupyterlab' / 'notebook-extension' / 'tracker.jupyterlab-settings'
        windowing.parent.mkdir(parents=True)
        windowing.write_text(json.dumps({'windowingMode': 'none'}))
        with server(cmd, f'http://127.0.0.1:{port}/api/status?token={token}', SHOTS / 'jupyterlab.log',
                    env=env, cwd=work):
            page = browser.new_page(viewport={'width': 1400, 'height': 1000})
            page.set_default_timeout(30_000)
            base = (f'http://127.0.0.1:{port}', token)
            try:
                check_unmodified(page, base, nbs)
                check_sliders(page, base)
                run_again(page, '07_sampling', 240)
                check_rerun(page, base, '06_training', 300)
                check_plot(page, base)
            except Exception:
                page.screenshot(path=str(SHOTS / 'jupyterlab-failure.png'))
                raise
            finally: page.close()


def chat_run(work: Path) -> Path:  # an empty folder
    "A run folder holding a chat model that answers 'Hi' to anything, saved as a checkpoint"
    import string
    from dataclasses import asdict

    import torch
    from nanogpt.chat import chat_tokenizer
    from nanogpt.talk import toy_chat_model
    from nanogpt.tokenizers import CharTokenizer
    tok = chat_tokenizer(CharTokenizer(''.join(sorted(set(string.printable)))))
    model = toy_chat_model(tok, {'<|assistant|>': 'H', 'H': 'i', 'i': '<|end|>'})
    run = work / 'chat'
    run.mkdir()
    torch.save({'model': model.state_dict(), 'model_args': asdict(model.config), 'tokenizer': tok.to_meta()},
               run / 'ckpt.pt')
    return run


def check_playground(browser):  # a Playwright browser
    "The playground's chat view: two messages, each answered in the page, the second sent with the first's answer"
    with tempfile.TemporaryDirectory(prefix='nanogpt-chat-') as tmp:
        port = free_port()
        cmd = [sys.executable, '-m', 'nanogpt', 'serve', '--out_dir', str(chat_run(Path(tmp))), '--port', str(port),
               '--device', 'cpu']
        url = f'http://127.0.0.1:{port}'
        with server(cmd, f'{url}/health', SHOTS / 'serve.log', env=dict(os.environ, OMP_NUM_THREADS='1')):
            page = browser.new_page()
            errors, sent = [], []
            page.on('pageerror', lambda e: errors.append(str(e)))
            page.on('request', lambda r: sent.append(json.loads(r.post_data))
                    if r.url.endswith('/v1/chat/completions') else None)
            try:
                page.goto(url + '/', timeout=30_000)
                for n, message in enumerate(('Hello!', 'Who are you?'), 1):
                    page.fill('#message', message)
                    page.press('#message', 'Enter')
                    page.wait_for_function(f"document.querySelectorAll('#messages .assistant').length === {n} && "
                                           "document.querySelector('#status').textContent === 'done'", timeout=60_000)
                shown = [(p.get_attribute('class'), p.text_content()) for p in page.query_selector_all('#messages p')]
                page.screenshot(path=str(SHOTS / 'playground-chat.png'))
            finally: page.close()
        want = [('user', 'Hello!'), ('assistant', 'Hi'), ('user', 'Who are you?'), ('assistant', 'Hi')]
        assert shown == want and not errors, (shown, errors)
        assert [m['content'] for m in sent[1]['messages']] == ['Hello!', 'Hi', 'Who are you?'], sent
        assert sent[1]['stream'] is True and 'temperature' in sent[1], sent[1]
        print('playground chat: two messages answered in the page, the conversation sent whole')


def on_deadline(signum, frame):
    raise TimeoutError(f'the browser test ran past its {DEADLINE_S} s deadline')


def main(parts: list) -> int:  # which checks: 'site', 'jupyterlab', 'playground'
    chromium = next((p for p in (shutil.which('chromium'), '/usr/bin/chromium') if p and Path(p).exists()), None)
    if chromium is None:
        if os.environ.get('NANOGPT_REQUIRE_BROWSER'):
            print("browser test: no Chromium (apt-get install chromium); CI requires it")
            return 1
        print('browser test skipped: no Chromium here (apt-get install chromium runs it)')
        return 0
    if 'site' in parts and not (SITE / 'index.html').exists():
        print(f'no site in {SITE.name}/: run python .ci/make_site.py first')
        return 1
    SHOTS.mkdir(parents=True, exist_ok=True)
    signal.signal(signal.SIGALRM, on_deadline)
    signal.alarm(DEADLINE_S)
    start = time.time()
    from playwright.sync_api import sync_playwright
    problems = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, args=['--no-sandbox'], timeout=60_000)
            try:
                if 'site' in parts:
                    t = time.time()
                    problems += check_site(browser)
                    print(f'site checks: {time.time() - t:.0f} s')
                if 'jupyterlab' in parts:
                    t = time.time()
                    check_jupyterlab(browser)
                    print(f'jupyterlab checks: {time.time() - t:.0f} s')
                if 'playground' in parts:
                    t = time.time()
                    check_playground(browser)
                    print(f'playground checks: {time.time() - t:.0f} s')
            finally: browser.close()
    except Exception as e:
        problems.append(f'{type(e).__name__}: {e}')
    finally: signal.alarm(0)
    for p in problems: print(p)
    print(f'browser test: {len(problems)} problems in {time.time() - start:.0f} s; screenshots in {SHOTS}')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:] or ['site', 'jupyterlab', 'playground']))  # e.g. `python .ci/browser_test.py jupyterlab`
