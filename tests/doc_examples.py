#!/usr/bin/env python3
"""doc_examples.py: runs every command shown in README.md and docs/*.md, as
written, in an empty scratch directory per document (issue 16, item 3).

Usage: doc_examples.py SOURCE_ROOT --program PATH [--program PATH...]
           [--preload-dir DIR] [--mpi yes|no] [--doc NAME] [--list] [--self-test]

The conventions (docs/README.md, "Commands in the docs are tested") are:
- Commands are taken from fenced blocks marked sh, shell, bash or console or
  not marked at all, and from blocks indented by four spaces. In a block, a
  line is a command when it starts with `$ ` (the prompt is dropped) or,
  after any VAR=value assignments, with one of COMMAND_WORDS; other lines
  (output, file contents) are not run. A line ending in `\\` continues on
  the next one; a here-document (`<<'EOF'`) runs with its lines.
- A block right after an HTML comment `<!-- not run: REASON -->` is not
  run; its commands are listed as skipped with the reason.
- A command ending in the comment `# exits N` must exit with status N;
  every other command must exit with 0.
- A command fails without being run when it holds a literal `...` or names
  a file of the source tree that is not installed (tests/, src/, tools/,
  fuzz/, build/, $PWD/build).
- Commands needing MPI (mpirun, mpicc, fennelprobe, libfenneltrace) are
  skipped, with a note, when the build has no MPI.
Each document's commands run in its own new directory outside the source
tree, in document order, with bash -o pipefail, the directories of the
given programs first on PATH, FENNELSIM_PATH unset, and the directory of
libfenneltrace.so on LD_LIBRARY_PATH.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

COMMAND_WORDS = {
    'fennelsim', 'fennelprobe', 'mpirun', 'mpicc', 'cat', 'printf', 'echo',
    'gzip', 'gunzip', 'zcat', 'head', 'tail', 'grep', 'ls', 'cp', 'mv',
    'mkdir', 'rm', 'sort', 'wc', 'cc', 'python3', 'man', 'diff', 'cut',
    'awk', 'sed', 'tr', 'cd', 'export', 'for', 'test', 'cmp',
}
SHELL_LANGS = {'', 'sh', 'shell', 'bash', 'console'}
MPI_WORDS = ('mpirun', 'mpicc', 'fennelprobe', 'libfenneltrace')
TREE_PATH = re.compile(r'(^|[\s=:])(\$PWD/|\./)?(tests|src|tools|fuzz|build)/')
EXITS = re.compile(r'#\s*exits\s+(\d+)\s*$')
HEREDOC = re.compile(r"<<-?\s*['\"]?([A-Za-z_][A-Za-z0-9_]*)['\"]?")
NOT_RUN = re.compile(r'^\s*<!--\s*not run:\s*(.*?)\s*-->\s*$')
TIMEOUT_S = 120


class Command:
    def __init__(self, doc, line, text, skip=None):
        self.doc, self.line, self.text, self.skip = doc, line, text, skip
        m = EXITS.search(text.splitlines()[0] if '<<' in text else text)
        self.expect = int(m.group(1)) if m else 0


def blocks(lines):
    """Yields (first line number, lines, reason not run or None) of each
    shell block of a markdown text."""
    i, n, pending = 0, len(lines), None
    while i < n:
        line = lines[i]
        m = NOT_RUN.match(line)
        if m:
            pending = m.group(1)
            i += 1
            continue
        fence = re.match(r'^(\s*)(```+|~~~+)\s*([A-Za-z0-9_+-]*)', line)
        if fence:
            indent, mark, lang = fence.group(1), fence.group(2), fence.group(3).lower()
            body, j = [], i + 1
            while j < n and not lines[j].strip().startswith(mark):
                body.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j].lstrip())
                j += 1
            if lang in SHELL_LANGS:
                yield i + 2, body, pending, lang == 'console'
            pending, i = None, j + 1
            continue
        if line.startswith('    ') and line.strip() and (i == 0 or not lines[i - 1].strip()):
            indent = len(line) - len(line.lstrip(' '))
            body, j = [], i
            while j < n and (lines[j].startswith(' ' * indent) or not lines[j].strip()):
                body.append(lines[j][indent:])
                j += 1
            while body and not body[-1].strip():
                body.pop()
            yield i + 1, body, pending, False
            pending, i = None, j
            continue
        if line.strip():
            pending = None
        i += 1


def is_command(text):
    words = text.split()
    while words and re.match(r'^[A-Za-z_][A-Za-z0-9_]*=', words[0]):
        words.pop(0)
    return bool(words) and words[0] in COMMAND_WORDS


def commands(doc, text):
    out = []
    for first, body, reason, console in blocks(text.split('\n')):
        k = 0
        while k < len(body):
            raw, number = body[k], first + k
            k += 1
            stripped = raw.strip()
            prompted = stripped.startswith('$ ')
            if prompted:
                stripped = stripped[2:]
            elif console:
                continue
            while stripped.endswith('\\') and k < len(body):
                stripped = stripped + '\n' + body[k].strip()
                k += 1
            if not (prompted or is_command(stripped)):
                # a block not run lists each of its commands as skipped
                if not (reason and stripped and not stripped.startswith('#')):
                    continue
            hd = HEREDOC.search(stripped)
            if hd:
                while k < len(body):
                    stripped += '\n' + body[k]
                    k += 1
                    if body[k - 1].strip() == hd.group(1):
                        break
            out.append(Command(doc, number, stripped, reason))
    return out


def made_by(text):
    """The files a command makes: -o's and --collectives' values, and the
    tracer's FENNELTRACE_DIR."""
    words, made = text.split(), set()
    for k, w in enumerate(words):
        if w in ('-o', '--collectives') and k + 1 < len(words):
            made.add(words[k + 1].rstrip('/'))
        elif w.startswith('FENNELTRACE_DIR='):
            made.add(w.split('=', 1)[1].rstrip('/'))
    return made


def run_doc(doc, cmds, args, env):
    results, mpi_made = [], set()
    with tempfile.TemporaryDirectory(prefix='fennelsim-doc-') as scratch:
        for c in cmds:
            shown = c.text.replace('\n', '\n        ')
            where = '%s:%d' % (doc, c.line)
            if c.skip:
                results.append('skip')
                print('skip  %s: %s\n      (not run: %s)' % (where, shown, c.skip))
                continue
            if '...' in c.text:
                results.append('fail')
                print('FAIL  %s: %s\n      (a literal "..." in the command)' % (where, shown))
                continue
            if TREE_PATH.search(c.text):
                results.append('fail')
                print('FAIL  %s: %s\n      (names a file of the source tree, which is not installed)' % (where, shown))
                continue
            head = c.text.split('\n', 1)[0] if HEREDOC.search(c.text) else c.text
            if args.mpi != 'yes' and any(w in head for w in MPI_WORDS):
                mpi_made.update(made_by(c.text))
                results.append('skip')
                print('skip  %s: %s\n      (needs MPI: this build has none)' % (where, shown))
                continue
            used = [w.rstrip('/') for w in c.text.split() if w.rstrip('/') in mpi_made]
            if used:
                mpi_made.update(made_by(c.text))
                results.append('skip')
                print('skip  %s: %s\n      (uses %s, which a command needing MPI makes)' % (where, shown, used[0]))
                continue
            start = time.monotonic()
            try:
                p = subprocess.run(['bash', '-o', 'pipefail', '-c', c.text], cwd=scratch, env=env,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, timeout=TIMEOUT_S)
                status, output = p.returncode, p.stdout.decode('utf-8', 'replace')
            except subprocess.TimeoutExpired as e:
                status, output = 'timeout', (e.stdout or b'').decode('utf-8', 'replace')
            took = time.monotonic() - start
            good = status == c.expect
            results.append('ok' if good else 'fail')
            print('%s  %s: %s\n      (exit %s%s, %.2f s)' % (
                'ok  ' if good else 'FAIL', where, shown, status,
                '' if c.expect == 0 else ', expected %d' % c.expect, took))
            if not good:
                tail = output.strip().split('\n')[-15:]
                print('      | ' + '\n      | '.join(tail))
    return results


SELF_TEST_DOC = r"""# A page

    echo one > a.txt
    cat a.txt \
      a.txt
    cat missing.txt      # exits 1
    cat a.txt            # exits 2
    echo ...
    cat tests/goal/x.goal
    output lines are not run

<!-- not run: a reason -->

```sh
echo skipped
```

```console
$ printf 'x\n' | cat
x
$ cat > b.txt <<'END'
two
END
$ cat b.txt
two
```

```text
echo never
```
"""
SELF_TEST_EXPECT = [
    ('echo one > a.txt', 'ok'), ('cat a.txt \\\na.txt', 'ok'),
    ('cat missing.txt      # exits 1', 'ok'), ('cat a.txt            # exits 2', 'fail'),
    ('echo ...', 'fail'), ('cat tests/goal/x.goal', 'fail'), ('echo skipped', 'skip'),
    ("printf 'x\\n' | cat", 'ok'), ("cat > b.txt <<'END'\ntwo\nEND", 'ok'), ('cat b.txt', 'ok'),
]


def self_test(args, env):
    """Checks the extraction and the verdicts on a page made for the purpose."""
    cmds = commands('self-test.md', SELF_TEST_DOC)
    got = list(zip([c.text for c in cmds], run_doc('self-test.md', cmds, args, env)))
    if got != SELF_TEST_EXPECT:
        print('self-test FAILED:\n  got      %r\n  expected %r' % (got, SELF_TEST_EXPECT))
        return 1
    print('self-test: %d commands extracted and judged as expected' % len(got))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('root')
    ap.add_argument('--program', action='append', default=[])
    ap.add_argument('--preload-dir', action='append', default=[])
    ap.add_argument('--mpi', choices=('yes', 'no'), default='no')
    ap.add_argument('--doc', action='append', default=[])
    ap.add_argument('--list', action='store_true')
    ap.add_argument('--self-test', action='store_true')
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    docs = ['README.md'] + sorted('docs/' + f for f in os.listdir(os.path.join(root, 'docs'))
                                  if f.endswith('.md'))
    if args.doc:
        docs = [d for d in docs if d in args.doc or os.path.basename(d) in args.doc]
    env = dict(os.environ)
    env.pop('FENNELSIM_PATH', None)
    dirs = []
    for p in args.program:
        d = os.path.dirname(os.path.abspath(p))
        if d not in dirs:
            dirs.append(d)
    env['PATH'] = os.pathsep.join(dirs + [env.get('PATH', '/usr/bin:/bin')])
    libs = [os.path.abspath(d) for d in args.preload_dir]
    if env.get('LD_LIBRARY_PATH'):
        libs.append(env['LD_LIBRARY_PATH'])
    if libs:
        env['LD_LIBRARY_PATH'] = os.pathsep.join(libs)
    # Open MPI: the test may run as root, and on fewer cores than ranks.
    env.update({'OMPI_ALLOW_RUN_AS_ROOT': '1', 'OMPI_ALLOW_RUN_AS_ROOT_CONFIRM': '1',
                'OMPI_MCA_rmaps_base_oversubscribe': '1'})
    env.pop('FENNELTRACE_DIR', None)
    if args.self_test:
        return self_test(args, env)
    total = {'ok': 0, 'fail': 0, 'skip': 0}
    per_doc = []
    for doc in docs:
        with open(os.path.join(root, doc), encoding='utf-8') as f:
            cmds = commands(doc, f.read())
        print('== %s: %d commands' % (doc, len(cmds)))
        if args.list:
            for c in cmds:
                print('%s:%d%s: %s' % (doc, c.line, ' (not run)' if c.skip else '', c.text))
            continue
        start = time.monotonic()
        res = run_doc(doc, cmds, args, env)
        for r in res:
            total[r] += 1
        per_doc.append((doc, len(cmds), res.count('fail'), time.monotonic() - start))
    if args.list:
        return 0
    print('== per document:')
    for doc, n, failed, took in per_doc:
        print('   %-22s %3d commands, %d failed, %.1f s' % (doc, n, failed, took))
    print('== %d commands: %d passed, %d failed, %d skipped' % (
        sum(total.values()), total['ok'], total['fail'], total['skip']))
    return 1 if total['fail'] else 0


if __name__ == '__main__':
    sys.exit(main())
