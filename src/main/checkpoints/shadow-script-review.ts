/**
 * The review half of the shadow-store program (shadow-script.ts joins it in): what differs between
 * two snapshots (`changes`, bounded), unified diffs (`patch`), both sides of one file (`show`), and
 * the commit message's notes on large and special files. Python 3, run in the checkpoint guest; it
 * uses the program's `git` and `split0` helpers, defined before it.
 */

/** Python 3 source: `meta_of`, `big_of`, `special_of`, `pathset`, `changes`, `all_changes`, `patch`, `side`, `show`. */
export const SHADOW_REVIEW_PART = String.raw`
def meta_of(commit):
    raw = git(['cat-file', 'commit', commit]).stdout
    msg = raw.split(b'\n\n', 1)[1] if b'\n\n' in raw else b''
    try:
        m = json.loads(msg.decode('utf-8'))
        return m if isinstance(m, dict) else {}
    except ValueError:
        return {}

def big_of(commit):
    return meta_of(commit).get('big', {})

def special_of(commit):
    return meta_of(commit).get('special', {})

def pathset(w):
    if isinstance(w, list):
        return set(w)
    return set(p for f in all_changes(w['a'], w['b']) for p in ([f['path'], f['oldPath']] if 'oldPath' in f else [f['path']]))

def changes(a):
    files = all_changes(a['a'], a['b'])
    if a.get('within') is not None:
        keep = pathset(a['within'])
        files = [f for f in files if f['path'] in keep or f.get('oldPath') in keep]
    limit = a.get('limit')
    more = 0
    if isinstance(limit, int) and len(files) > limit:
        more = len(files) - limit
        files = files[:limit]
    return {'files': files, 'more': more}

def all_changes(ca, cb):
    ns = split0(git(['diff-tree', '-r', '-z', '-M', '--no-ext-diff', '--no-textconv', '--numstat', ca, cb]).stdout)
    st = split0(git(['diff-tree', '-r', '-z', '-M', '--no-ext-diff', '--no-textconv', '--name-status', ca, cb]).stdout)
    counts = {}
    i = 0
    while i < len(ns):
        parts = ns[i].split(b'\t')
        if len(parts) == 3 and parts[2] == b'':
            key, i = ns[i + 2], i + 3
        else:
            key, i = parts[2], i + 1
        counts[key] = (parts[0], parts[1])
    files = []
    i = 0
    names = {'A': 'added', 'M': 'modified', 'T': 'modified', 'D': 'deleted', 'R': 'renamed', 'C': 'added'}
    while i < len(st):
        code = st[i].decode()[0]
        if code in 'RC':
            old, new, i = st[i + 1], st[i + 2], i + 3
        else:
            old, new, i = None, st[i + 1], i + 2
        add, dele = counts.get(new, (b'0', b'0'))
        f = {'path': new.decode('utf-8', 'surrogateescape'), 'status': names.get(code, 'modified'),
             'additions': 0 if add == b'-' else int(add), 'deletions': 0 if dele == b'-' else int(dele)}
        if add == b'-':
            f['binary'] = True
        if old is not None and code == 'R':
            f['oldPath'] = old.decode('utf-8', 'surrogateescape')
        files.append(f)
    ba, bb = big_of(ca), big_of(cb)
    for p in sorted(set(ba) | set(bb)):
        if ba.get(p) == bb.get(p):
            continue
        had = any(f['path'] == p for f in files)  # stored on the other side: it crossed the cap
        files = [f for f in files if f['path'] != p]
        status = 'modified' if had or (p in ba and p in bb) else 'added' if p not in ba else 'deleted'
        files.append({'path': p, 'status': status, 'additions': 0, 'deletions': 0, 'large': True})
    sa, sb = special_of(ca), special_of(cb)
    for p in sorted(set(sa) | set(sb)):
        if sa.get(p) == sb.get(p):
            continue
        had = any(f['path'] == p for f in files)
        files = [f for f in files if f['path'] != p]
        status = 'modified' if had or (p in sa and p in sb) else 'added' if p not in sa else 'deleted'
        files.append({'path': p, 'status': status, 'additions': 0, 'deletions': 0, 'special': sb.get(p) or sa.get(p)})
    files.sort(key=lambda f: f['path'])
    return files

def patch(a):
    args = ['diff-tree', '-p', '-r', '-M', '--no-ext-diff', '--no-textconv', '--no-color', '--full-index', '--binary', a['a'], a['b']]
    paths = a.get('paths')
    if paths:
        args += ['--'] + paths
    out = git(args).stdout
    ba, bb = big_of(a['a']), big_of(a['b'])
    notes = []
    for p in sorted(set(ba) | set(bb)):
        if ba.get(p) != bb.get(p) and (not paths or p in paths):
            desc = lambda s: 'absent' if s is None else '%d bytes, sha256 %s' % (s[0], s[1])
            notes.append('Large file %s: %s -> %s (content not kept)\n' % (p, desc(ba.get(p)), desc(bb.get(p))))
    sa, sb = special_of(a['a']), special_of(a['b'])
    for p in sorted(set(sa) | set(sb)):
        if sa.get(p) != sb.get(p) and (not paths or p in paths):
            notes.append('Special file %s: %s -> %s (not recorded)\n' % (p, sa.get(p, 'not special'), sb.get(p, 'not special')))
    sys.stdout.buffer.write(out + ''.join(notes).encode('utf-8', 'surrogateescape'))
    return None

def side(commit, path, mx):
    if path is None:
        return None
    big = big_of(commit).get(path)
    if big:
        return {'size': big[0], 'binary': False, 'large': True}
    r = git(['cat-file', '-s', commit + ':' + path], check=False)
    if r.returncode != 0:
        return None
    size = int(r.stdout)
    if size > mx:
        return {'size': size, 'binary': False, 'large': True}
    data = git(['cat-file', 'blob', commit + ':' + path]).stdout
    if b'\0' in data[:8000]:
        return {'size': size, 'binary': True, 'large': False}
    return {'size': size, 'binary': False, 'large': False, 'text': data.decode('utf-8', 'replace')}

def show(a):
    return {'before': side(a['a'], a.get('oldPath') or a['path'], int(a['max'])), 'after': side(a['b'], a['path'], int(a['max']))}
`
