"""Packaging for nanogpt. Runtime requirements, version and entry points live in settings.ini (nbdev 2)."""
import shlex
from configparser import ConfigParser
from pathlib import Path

import setuptools

config = ConfigParser(delimiters=['='])
config.read('settings.ini', encoding='utf-8')
cfg = config['DEFAULT']

# The notebook toolchain. nbdev 3 refuses settings.ini, so stay on the last consistent nbdev 2 line.
dev_requirements = [
    'nbdev>=2.4.14,<3',
    'fastcore>=1.12.27,<2',
    'execnb>=0.1.14,<0.2',
    'jupyterlab',  # learners work through the notebooks in JupyterLab
    'transformers>=4.40',  # lesson 08's parity checks build GPT-2 models in OpenAI's layout; never used by the package
    'peft>=0.21',  # lesson 13's checks load our LoRA adapters with peft and peft's with ours; never used by the package
    'trl>=1.16',  # lesson 17 checks its DPO loss against TRL's DPOTrainer on the same log-probabilities; never used by the package
    'openai>=1.30',  # lesson 12 tests the server with the official client, as users reach it
    'httpx>=0.27',  # lesson 12's load test and raw HTTP checks
    'playwright>=1.44',  # lesson 12's browser test drives Debian's chromium (no browser download)
    'mkdocs-material>=9.5',  # the course website (.ci/make_site.py): MkDocs, the Material theme and its search
    'mkdocs-jupyter>=0.25',  # renders each notebook with its committed outputs on the site, never executing it
    'latex2mathml>=3.77',  # the site's math as MathML, which browsers draw without fetching MathJax from a CDN
    'ruff>=0.6',  # lint and import order of the generated package (.ci/run: ruff check nanogpt)
]
# `nanogpt export` and lesson 11: ONNX files and ONNX Runtime. Imported only when asked for, with a message naming this extra.
export_requirements = ['onnx>=1.16', 'onnxruntime>=1.18', 'onnxscript>=0.2']
# `nanogpt serve` and lesson 12: FastAPI for the async, streaming HTTP API, uvicorn to run it. Imported only when serving.
serve_requirements = ['fastapi>=0.110', 'uvicorn>=0.29']
# `nanogpt prepare` on Parquet files and Hugging Face datasets, and `--tokenizer bpe` trained by Hugging Face's
# `tokenizers` (Rust, every core: hundreds of MB in minutes) (engine/14_corpora). Imported only when asked for.
data_requirements = ['datasets>=2.19', 'pyarrow>=14', 'tokenizers>=0.19']
# engine/16_harness: EleutherAI's lm-evaluation-harness scores our models on its tasks through the `nanogpt` model
# type (nanogpt.harness, the one module that imports it, with a message naming this extra). 0.4.13 is the release
# tested; the 0.5 line may change the model API. lm-eval needs Python 3.10, so older Pythons get the rest of dev.
eval_requirements = ['lm-eval>=0.4.13,<0.5; python_version >= "3.10"']

setuptools.setup(
    name=cfg['lib_name'],
    version=cfg['version'],
    description=cfg['description'],
    keywords=cfg['keywords'],
    author=cfg['author'],
    author_email=cfg['author_email'],
    license='Apache-2.0',
    url=cfg['git_url'],
    classifiers=[
        'Development Status :: 3 - Alpha',
        'Intended Audience :: Developers',
        'Intended Audience :: Education',
        'License :: OSI Approved :: Apache Software License',
        'Natural Language :: English',
        'Programming Language :: Python :: 3',
    ],
    packages=setuptools.find_packages(include=[cfg['lib_path'], cfg['lib_path'] + '.*']),
    include_package_data=True,
    # enables the package's Jupyter Server extension: saving a lesson in JupyterLab leaves it as committed
    data_files=[('etc/jupyter/jupyter_server_config.d', ['nanogpt/jupyter/nanogpt.json'])],
    install_requires=shlex.split(cfg.get('requirements', '')),
    extras_require={'dev': (dev_requirements + export_requirements + serve_requirements + data_requirements
                            + eval_requirements),
                    'export': export_requirements, 'serve': serve_requirements, 'data': data_requirements,
                    'eval': eval_requirements},
    python_requires='>=' + cfg['min_python'],
    long_description=Path('README.md').read_text(encoding='utf-8'),
    long_description_content_type='text/markdown',
    zip_safe=False,
    entry_points={
        'console_scripts': cfg.get('console_scripts', '').split(),
        'nbdev': [f"{cfg['lib_path']}={cfg['lib_path']}._modidx:d"],
        # lm-evaluation-harness finds the `nanogpt` model type here where it reads this group (merged upstream after
        # 0.4.13, its PR #4013); 0.4.13 does not: nanogpt.harness.register(), run_harness(), lm_eval_main() add it
        'lm_eval.models': [f"nanogpt={cfg['lib_path']}.harness:NanoGPTLM"],
    },
)
