#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks README.md and docs/: every relative link points at a file that exists
(and at a heading there when it has an #anchor), and, given gatehouse-cli, that
every `--flag` shown after `gatehouse-cli` in a code block is one of its options.
Usage: check_docs.py SOURCE_DIR [GATEHOUSE_CLI]"""
import pathlib
import re
import subprocess
import sys

root = pathlib.Path(sys.argv[1])
cli = sys.argv[2] if len(sys.argv) > 2 else None
pages = [root / 'README.md', root / 'CONTRIBUTING.md'] + sorted((root / 'docs').rglob('*.md'))
errors = []


def anchors(path):
    out = set()
    for line in path.read_text().splitlines():
        if line.startswith('#'):
            title = line.lstrip('#').strip().lower()
            title = re.sub(r'[^\w\- ]', '', title)
            out.add(title.replace(' ', '-'))
    return out


for page in pages:
    text = page.read_text()
    for target in re.findall(r'\]\(([^)\s]+)\)', text):
        if re.match(r'[a-z]+:', target):
            continue
        file, _, anchor = target.partition('#')
        dest = (page.parent / file).resolve() if file else page
        if not dest.exists():
            errors.append(f'{page.relative_to(root)}: link to missing {target}')
        elif anchor and dest.suffix == '.md' and anchor not in anchors(dest):
            errors.append(f'{page.relative_to(root)}: no heading #{anchor} in {file or page.name}')

if cli:
    help_text = subprocess.run([cli, '--help'], capture_output=True, text=True).stdout
    known = set(re.findall(r'--[a-z][a-z0-9-]*', help_text))
    for page in pages:
        blocks = re.findall(r'```(?:sh|console)?(?: runnable)?\n(.*?)```', page.read_text(), re.S)
        for block in blocks:
            block = block.replace('\\\n', ' ')
            for line in block.splitlines():
                line = line.removeprefix('$ ')
                if not line.strip().startswith('gatehouse-cli '):
                    continue
                command = line.split('#')[0].split('|')[0]
                for flag in re.findall(r'(?<![\w-])--[a-z][a-z0-9-]*', command):
                    if flag not in known:
                        errors.append(f'{page.relative_to(root)}: {flag} is not a '
                                      f'gatehouse-cli option: {line.strip()}')

for e in errors:
    print(e)
sys.exit(1 if errors else 0)
