/**
 * The program that runs INSIDE the guest against a repository's checkpoint store (a shadow git
 * directory, see docs/adr/0010-checkpoints.md): `python3 -c SHADOW_SCRIPT <command> <json-args>`,
 * one JSON object on stdout (or raw text for `patch`). It never touches the repository's own `.git`:
 * GIT_DIR is the store, GIT_WORK_TREE the repository, one index per session. Every git call runs
 * with no system/global config, hooks off, fsmonitor off, and `info/attributes` unsetting every
 * conversion and filter, so content is stored and restored byte for byte and nothing in the store
 * or the repository makes git run a program.
 *
 * Snapshots themselves are the guest agent's `snapshot` op (src/guest-agent/checkpoint.ts: the
 * repository's ignore rules and `.git/info/exclude` apply; files over the cap are recorded by sha256
 * and size in the commit message), taken there because they run around every turn.
 *
 * Commands (args is one JSON object):
 * - `changes {a, b, within?, limit?}`: files that differ between commits a and b (renames detected),
 *   sorted by path; `within` (a list of paths, or `{a, b}`: the paths that differ between those)
 *   keeps only those, `limit` keeps the first that many →
 *   `{files: [{path, status, additions, deletions, oldPath?, binary?, large?, special?}], more}`
 *   (`more`: how many were left off, so the reply stays small whatever a turn did).
 * - `patch {a, b, paths?}`: unified diff text (large files as one note line each).
 * - `show {a, b, path, oldPath?, max}`: both sides of one file → `{before, after}` each
 *   `{text?, size, binary, large}` or null when absent.
 * - `restore {sid, target, paths | from}`: make `paths` (or every path that differs between `target`
 *   and commit `from`, listed here: no long argument) as in commit `target` (deleting what it
 *   lacks); large and special files cannot be restored → `{restored, deleted, skipped}`.
 * - `refs {prefix}`: `{refs: {name: commit}}`; `drop {refs, prune}`: delete refs (and prune unreachable
 *   objects older than an hour: younger ones may belong to a snapshot another session is writing).
 * - `size`: bytes used by the store → `{bytes}`.
 */
import { SHADOW_REVIEW_PART } from './shadow-script-review'

/** Python 3 source of the shadow-store program (python3 is in the guest image); its review half is shadow-script-review.ts. */
export const SHADOW_SCRIPT = String.raw`
import json, os, subprocess, sys
STORE = os.environ['CORTEX_STORE']
REPO = os.environ['CORTEX_REPO']
REAL_REPO = os.path.realpath(REPO)
GIT_DIR = os.path.join(STORE, 'git')
CFG = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', '-c', 'core.autocrlf=false',
       '-c', 'core.safecrlf=false', '-c', 'core.quotepath=false', '-c', 'core.symlinks=true',
       '-c', 'core.filemode=true', '-c', 'core.logAllRefUpdates=false', '-c', 'gc.auto=0',
       '-c', 'core.untrackedCache=true', '-c', 'safe.directory=*', '-c', 'diff.renames=true',
       '-c', 'core.attributesFile=/dev/null', '-c', 'diff.external=', '-c', 'core.pager=cat']
EXCL = os.path.join(REPO, '.git', 'info', 'exclude')
if os.path.isfile(EXCL):
    CFG += ['-c', 'core.excludesFile=' + EXCL]
ENV = dict(os.environ)
for k in list(ENV):
    if k.startswith('GIT_'):
        del ENV[k]
ENV.update({'GIT_DIR': GIT_DIR, 'GIT_WORK_TREE': REPO, 'GIT_CONFIG_NOSYSTEM': '1', 'GIT_CONFIG_GLOBAL': '/dev/null',
            'GIT_ATTR_NOSYSTEM': '1', 'GIT_LITERAL_PATHSPECS': '1', 'GIT_NO_REPLACE_OBJECTS': '1', 'GIT_TERMINAL_PROMPT': '0',
            'GIT_AUTHOR_NAME': 'Cortex', 'GIT_AUTHOR_EMAIL': 'checkpoints@cortex.invalid', 'GIT_AUTHOR_DATE': '@0 +0000',
            'GIT_COMMITTER_NAME': 'Cortex', 'GIT_COMMITTER_EMAIL': 'checkpoints@cortex.invalid', 'GIT_COMMITTER_DATE': '@0 +0000'})
ATTRS = b'* -text !eol -filter -ident !working-tree-encoding\n'

def git(args, sid=None, inp=None, check=True):
    env = ENV
    if sid is not None:
        env = dict(ENV)
        env['GIT_INDEX_FILE'] = index_of(sid)
    r = subprocess.run(['git'] + CFG + args, input=inp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=REPO)
    if check and r.returncode != 0:
        raise SystemExit('git %s failed (%d): %s' % (args[0], r.returncode, r.stderr.decode('utf-8', 'replace').strip()[-800:]))
    return r

def index_of(sid):
    if not sid.replace('-', '').replace('_', '').isalnum():
        raise SystemExit('bad session id')
    return os.path.join(STORE, 'index', sid)

def ensure_init():
    if not os.path.isfile(os.path.join(GIT_DIR, 'HEAD')):
        env = dict(ENV)
        del env['GIT_WORK_TREE']
        subprocess.run(['git'] + CFG + ['init', '-q', GIT_DIR], env=env, check=True, stdout=subprocess.DEVNULL, cwd=STORE)
    os.makedirs(os.path.join(STORE, 'index'), exist_ok=True)
    info = os.path.join(GIT_DIR, 'info')
    os.makedirs(info, exist_ok=True)
    attrs = os.path.join(info, 'attributes')
    try:
        same = open(attrs, 'rb').read() == ATTRS
    except OSError:
        same = False
    if not same:
        with open(attrs, 'wb') as f:
            f.write(ATTRS)

def split0(b):
    return [p for p in b.split(b'\0') if p]
${SHADOW_REVIEW_PART}
def restore(a):
    ensure_init()
    sid, target = a['sid'], a['target']
    paths = sorted(pathset({'a': target, 'b': a['from']})) if a.get('from') else a['paths']
    try:
        os.unlink(os.path.join(STORE, 'index', sid + '.last.json'))  # the index changes: no snapshot may reuse its last commit
    except OSError:
        pass
    tree = {}
    for line in split0(git(['ls-tree', '-r', '-z', '--full-tree', target]).stdout):
        meta, p = line.split(b'\t', 1)
        tree[p.decode('utf-8', 'surrogateescape')] = meta
    big = big_of(target)
    big.update(special_of(target))  # a special file cannot be made again: skipped like a large one
    restored, deleted, skipped = [], [], []
    checkout, unindex = [], []
    for p in paths:
        parts = p.split('/')
        if not p or p.startswith('/') or any(x in ('', '.', '..') for x in parts) or parts[0] == '.git':
            skipped.append(p)  # not a path inside the repository: never touched
            continue
        if p in tree:
            checkout.append(p)
        elif p in big:
            skipped.append(p)
        elif os.path.realpath(os.path.dirname(os.path.join(REPO, p))) != os.path.join(REAL_REPO, os.path.dirname(p)).rstrip('/'):
            skipped.append(p)  # a folder on the way is a symlink (one the model planted may lead out of the repository): not deleted through it
        else:
            full = os.path.join(REPO, p)
            if os.path.lexists(full) and not os.path.isdir(full) or os.path.islink(full):
                os.unlink(full)
                deleted.append(p)
                d = os.path.dirname(full)
                while d.startswith(REPO + '/') and d != REPO:
                    try:
                        os.rmdir(d)
                    except OSError:
                        break
                    d = os.path.dirname(d)
            unindex.append(p)
    if unindex:
        git(['update-index', '--force-remove', '-z', '--stdin'], sid, b''.join(p.encode('utf-8', 'surrogateescape') + b'\0' for p in unindex))
    if checkout:
        inp = b'\0'.join(p.encode('utf-8', 'surrogateescape') for p in checkout) + b'\0'
        git(['checkout', '--no-overlay', target, '--pathspec-from-file=-', '--pathspec-file-nul'], sid, inp)
        restored = checkout
    return {'restored': restored, 'deleted': deleted, 'skipped': skipped}

def refs(a):
    if not os.path.isfile(os.path.join(GIT_DIR, 'HEAD')):
        return {'refs': {}}
    out = git(['for-each-ref', '--format=%(refname) %(objectname)', a['prefix']]).stdout.decode()
    return {'refs': dict(l.split(' ', 1) for l in out.splitlines() if l)}

def drop(a):
    if a['refs']:
        inp = ''.join('delete %s\n' % r for r in a['refs']).encode()
        git(['update-ref', '--stdin'], inp=inp)
        if a.get('prune'):
            git(['prune', '--expire=1.hour.ago'])
    return {'dropped': len(a['refs'])}

def size(a):
    total = 0
    for root, dirs, files in os.walk(STORE):
        for f in files:
            try:
                total += os.lstat(os.path.join(root, f)).st_blocks * 512
            except OSError:
                pass
    return {'bytes': total}

cmd, args = sys.argv[1], json.loads(sys.argv[2])
res = {'changes': changes, 'patch': patch, 'show': show, 'restore': restore,
       'refs': refs, 'drop': drop, 'size': size}[cmd](args)
if res is not None:
    sys.stdout.write(json.dumps(res))
`
