#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Split mm/mask_alloc.c by concern (issue 30): a tree filter.

    split-mask-alloc.py TREE [--check]

Cuts TREE/mm/mask_alloc.c into mm/mask_alloc/{core,search,reserve,wait,
holders,boot,debugfs}.c by the table RULES below (a top-level item goes
where the first rule that matches its name sends it), and writes what
more than one of those files needs into mm/mask_alloc/pool.h: the types,
macros and inline helpers they share, and a declaration of every function
and variable that one defines and another uses (which then loses its
"static").  The other files of the allocator move beside them
(mask_alloc_internal.h becomes internal.h, mask_lend.c lend.c, and so on),
and the includes, Makefiles, kernel-doc directives and the harness follow.

The table assigns by name, so the same function lands in the same file at
every commit of the series: run on each commit's tree (git filter-branch
--tree-filter, or a rebase with exec), every patch's diff lands in the
files of its concern.  --check only prints where each item goes.
"""
import os
import re
import sys

# (regex on the item's name, file); first match wins; the rest is core.c.
RULES = [
    (r'^(mask_sum_\w+|MASK_SUM_\w+|mask_used_(before|from)|mask_find_area|mask_pool_find'
     r'|mask_pool_below|mask_pool_largest_free|mask_pool_free_below|mask_req_first_start'
     r'|mask_pool_can_fit)$', 'search'),
    (r'^(mask_res_\w+|mask_owned_from|mask_gfp_atomic|mask_fits_in_reserve'
     r'|mask_reserve_\w+|MASK_RESERVE_\w+|setup_maskzone_reserve|mask_pool_set_reserve)$',
     'reserve'),
    (r'^(mask_waiter\w*|mask_fair_wait|mask_claim\w*|mask_claimed_in|mask_wait_\w+'
     r'|mask_fair)$', 'wait'),
    (r'^(mask_zone_\w+|MASK_ZONE_\w+|setup_maskzone|mask_pool_grab|mask_pool_setup_bitmaps'
     r'|mask_free_bytes|mask_pool_reserve_low|increase_mask_zone|mask_pool_handover'
     r'|mask_ranges|mask_range|mask_nr_ranges|MASK_POOL_MAX_RANGES|mask_meta_bytes)$', 'boot'),
    (r'^(mask_summary\w*|mask_map\w*|MASK_MAP_\w+|mask_below_\w+|mask_largest_free_\w+'
     r'|mask_fair_(get|set|fops)|mask_timeout_(get|set)|mask_alloc_debugfs_init|mask_holder_show_one'
     r'|mask_holders_(show|fops|open))$', 'debugfs'),
    (r'^(mask_holder\w*|MASK_HOLDER\w*|mask_holders|mask_req_set_holder|mask_req_hold'
     r'|mask_pool_set_holder|mask_pool_holder_usage)$', 'holders'),
]
FILES = ['core', 'search', 'reserve', 'wait', 'holders', 'boot', 'debugfs']
OWNS = {  # each file's first comment: what it owns
    'core': 'the allocator: the pool\'s state, allocation and free, the page\n'
            ' * allocator\'s hooks, GFP_DMA, swiotlb\'s runs, lending\'s bitmaps,\n'
            ' * fault injection, statistics and the sysctls',
    'search': 'the search: the summary tree over the @used bitmap and the\n'
              ' * top-down search below a limit, with alignment and boundary',
    'reserve': 'the atomic reserve: the lowest free pages of the pool, kept for\n'
               ' * callers that cannot wait; maskzone_reserve= and its sysctl',
    'wait': 'waiting for frees: the waiters\' queue, served in arrival order,\n'
            ' * and the window the oldest one claims',
    'holders': 'who holds the pool: a table of holders (call sites, devices,\n'
               ' * swiotlb pools) and one byte per pool page',
    'boot': 'the pool at boot: maskzone=, the memory taken from memblock,\n'
            ' * the bitmaps, and the handover to the page allocator',
    'debugfs': 'the pool in debugfs: summary, map, below, largest_free,\n'
               ' * holders and fair',
}
MOVES = {  # old path under mm/ -> new name under mm/mask_alloc/
    'mask_alloc_internal.h': 'internal.h',
    'mask_lend.c': 'lend.c',
    'mask_alloc_debug.c': 'debug.c',
    'mask_alloc_bench.c': 'bench.c',
    'mask_alloc_stress.c': 'stress.c',
}

IDENT = re.compile(r'[A-Za-z_]\w*')
KEYWORDS = set('''if else for while do switch case default return break continue goto
sizeof typeof struct union enum static inline const volatile extern unsigned signed
int long short char void bool u8 u16 u32 u64 s8 s16 s32 s64 size_t __init __initdata
__ro_after_init __read_mostly noinline __always_inline'''.split())


def strip_code(text):
    """text with comments, strings and char literals blanked (same length)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j]))
            i = j
        elif text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i))
            i = j
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            out.append(c + ' ' * (j - i - 1) + (c if j < n else ''))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return ''.join(out)


class Item:
    def __init__(self, lines, conds):
        self.lines = lines          # source lines, with their comment
        self.conds = conds          # the enclosing #if branches
        self.names = []             # what it defines
        self.kind = 'code'          # code, func, var, type, macro, inline, decl
        self.target = None
        self.shared = False

    @property
    def text(self):
        return ''.join(self.lines)


def segment(src):
    """Top-level items of a C file, each with its leading comment, and the
    #if branches around it."""
    lines = src.splitlines(keepends=True)
    code = strip_code(src).splitlines(keepends=True)
    items, pending, conds, depth, cur = [], [], [], 0, None
    i = 0
    while i < len(lines):
        line, cl = lines[i], code[i]
        if cur is None and depth == 0 and line.lstrip().startswith('#'):
            # a directive, with its continuation lines
            block = [line]
            while block[-1].rstrip('\n').endswith('\\') and i + 1 < len(lines):
                i += 1
                block.append(lines[i])
            d = line.strip()
            m = re.match(r'#\s*(if|ifdef|ifndef|elif|else|endif)\b\s*(.*)', d)
            if m:
                kw, arg = m.group(1), re.sub(r'\s*/\*.*', '', m.group(2)).strip()
                if kw in ('if', 'ifdef', 'ifndef'):
                    conds = conds + [(kw, arg, 0)]
                elif kw in ('elif', 'else'):
                    k, a, b = conds[-1]
                    conds = conds[:-1] + [(k, a, b + 1, kw, arg)]
                else:
                    conds = conds[:-1]
                if pending:
                    items.append(Item(pending, conds))
                    items[-1].kind = 'comment'
                    pending = []
            else:
                it = Item(pending + block, conds)
                it.kind = 'macro' if re.match(r'#\s*define\b', d) else 'pp'
                mm = re.match(r'#\s*(define|undef)\s+(\w+)', d)
                if mm:
                    it.names = [mm.group(2)]
                items.append(it)
                pending = []
            i += 1
            continue
        if cur is None:
            if not cl.strip():
                # a blank line or a comment line outside any item
                pending.append(line)
                if not line.strip() and pending and not ''.join(pending).strip():
                    pending = []
                i += 1
                continue
            cur = pending
            pending = []
        cur.append(line)
        depth += cl.count('{') + cl.count('(') - cl.count('}') - cl.count(')')
        s = cl.rstrip()
        if depth == 0 and (s.endswith(';') or s.endswith('}')):
            items.append(Item(cur, conds))
            cur = None
        i += 1
    if pending:
        items.append(Item(pending, conds))
        items[-1].kind = 'comment'
    return items


ATTACH = re.compile(r'^\s*(EXPORT_SYMBOL\w*|early_param|__setup|\w*initcall\w*|'
                    r'DEFINE_SHOW_ATTRIBUTE|DEFINE_DEBUGFS_ATTRIBUTE|DEFINE_SIMPLE_ATTRIBUTE|'
                    r'ALLOW_ERROR_INJECTION)\s*\(')


def classify(items):
    """Names and kinds; statements that belong to the item before them
    (EXPORT_SYMBOL, early_param, initcalls, DEFINE_SHOW_ATTRIBUTE) join it."""
    out = []
    for it in items:
        if it.kind in ('comment', 'pp', 'macro'):
            out.append(it)
            continue
        code = strip_code(it.text)
        body = code.strip()
        m = ATTACH.match(body.split('\n')[-1] if '\n' not in body else body)
        if m and out and out[-1].kind not in ('comment', 'pp') and body.count(';') == 1:
            prev = out[-1]
            prev.lines += it.lines
            mm = re.match(r'\s*DEFINE_(SHOW|DEBUGFS|SIMPLE)_ATTRIBUTE\s*\(\s*(\w+)', body)
            if mm:
                prev.names.append(mm.group(2) if mm.group(1) != 'SHOW' else mm.group(2) + '_fops')
                if mm.group(1) == 'SHOW':
                    prev.names.append(mm.group(2) + '_open')
            continue
        head = code.split('{', 1)[0] if '{' in code else code
        if re.match(r'\s*(static\s+)?(struct|enum|union)\s+\w+\s*\{', code) and \
                re.search(r'\}\s*;\s*$', code):
            it.kind = 'type'
            it.names = [re.match(r'\s*(?:static\s+)?(?:struct|enum|union)\s+(\w+)', code).group(1)]
            if re.match(r'\s*enum', code):
                inner = code[code.index('{') + 1:code.rindex('}')]
                it.names += [m.group(1) for m in re.finditer(r'(\w+)\s*(?:=[^,]*)?(?:,|$)', inner)]
        elif re.search(r'\)\s*$', head.strip() + '') and code.rstrip().endswith('}'):
            # a function definition: the identifier before the first "("
            pre = head[:head.index('(')]
            it.names = [IDENT.findall(pre)[-1]]
            it.kind = 'inline' if re.search(r'\binline\b', pre) else 'func'
        elif re.match(r'\s*(static\s+)?(DEFINE|DECLARE)_\w+\s*\(\s*(\w+)', code):
            it.kind = 'var'
            it.names = [re.match(r'\s*(?:static\s+)?(?:DEFINE|DECLARE)_\w+\s*\(\s*(\w+)', code).group(1)]
        elif re.match(r'\s*(static\s+)?[\w\s\*]+\([^)]*\)\s*(__\w+\s*)*;\s*$', code, re.S) and \
                '=' not in code:
            it.kind = 'decl'
            it.names = [IDENT.findall(code.split('(')[0])[-1]]
        else:
            lhs = re.split(r'[=;\[]', code, maxsplit=1)[0]
            ids = [x for x in IDENT.findall(lhs) if x not in KEYWORDS and not x.startswith('__')]
            it.kind = 'var'
            it.names = ids[-1:] if ids else []
        out.append(it)
    return out


def target_of(name, names=()):
    # a debugfs attribute (DEFINE_*_ATTRIBUTE(x_fops)) lives with the
    # debugfs init that uses it: static const, it cannot be shared
    if any(n.endswith('_fops') for n in names):
        return 'debugfs'
    for rx, t in RULES:
        if re.match(rx, name):
            return t
    return 'core'


def uses(it):
    return set(IDENT.findall(strip_code(it.text))) - set(it.names)


def unstatic(text):
    """Drop "static " from the first code line of text, and move the
    continuation lines of its declarator as far left, as checkpatch wants
    them aligned with the open parenthesis."""
    lines = text.splitlines(keepends=True)
    code = strip_code(text).splitlines()
    k = next(i for i, cl in enumerate(code) if cl.strip())
    if not re.match(r'static\s', lines[k]):
        return text
    lines[k] = lines[k][len('static '):]
    depth = code[k].count('(') - code[k].count(')')
    i = k + 1
    while depth > 0 and i < len(lines):
        ws = re.match(r'[ \t]*', lines[i]).group(0)
        col = 0
        for c in ws:
            col = (col // 8 + 1) * 8 if c == '\t' else col + 1
        col = max(col - len('static '), 0)
        lines[i] = '\t' * (col // 8) + ' ' * (col % 8) + lines[i][len(ws):]
        depth += code[i].count('(') - code[i].count(')')
        i += 1
    return ''.join(lines)


def signature(it):
    """The declaration of a function or variable item, for pool.h."""
    code = strip_code(it.text)
    text = it.text
    # skip the leading comment: start at the first line with code
    lines, clines = text.splitlines(keepends=True), code.splitlines(keepends=True)
    k = next(i for i, cl in enumerate(clines) if cl.strip())
    text, code = ''.join(lines[k:]), ''.join(clines[k:])
    if it.kind == 'func':
        head = text[:code.index('{')].rstrip()
        return unstatic(head) + ';\n'
    m = re.match(r'\s*(?:static\s+)?DEFINE_(STATIC_KEY_(?:FALSE|TRUE))\s*\(\s*(\w+)\s*\)', code)
    if m:
        return f'DECLARE_{m.group(1)}({m.group(2)});\n'
    m = re.match(r'\s*(?:static\s+)?DECLARE_WAIT_QUEUE_HEAD\s*\(\s*(\w+)\s*\)', code)
    if m:
        return f'extern wait_queue_head_t {m.group(1)};\n'
    cut = min([x for x in (code.find('='), code.find(';')) if x >= 0])
    decl = unstatic(text[:cut].strip())
    decl = re.sub(r'\[[^\]]*\]', '[]', decl)
    return 'extern ' + decl + ';\n'


def cond_open(e):
    kw, arg, branch = e[0], e[1], e[2]
    if branch == 0:
        return f'#{kw} {arg}\n'
    if kw == 'ifdef':
        return f'#ifndef {arg}\n'
    if kw == 'ifndef':
        return f'#ifdef {arg}\n'
    return f'#if !({arg})\n'


def cond_close(e):
    return f'#endif /* {e[1]} */\n' if e[0] != 'if' else '#endif\n'


def emit(groups):
    """groups: [(conds, text)]; the text wrapped in its #if branches."""
    out, cur = [], []
    for conds, text in groups:
        conds = [c[:3] for c in conds]
        n = 0
        while n < min(len(cur), len(conds)) and cur[n] == conds[n]:
            n += 1
        # the other branch of the same conditional: #else
        if n < len(cur) and n < len(conds) and cur[n][:2] == conds[n][:2]:
            for e in reversed(cur[n + 1:]):
                out.append(cond_close(e))
            out.append('#else\n')
            for e in conds[n + 1:]:
                out.append(cond_open(e))
        else:
            for e in reversed(cur[n:]):
                out.append(cond_close(e))
            for e in conds[n:]:
                out.append(cond_open(e))
        cur = conds
        out.append(text)
        # a blank line after each item, but not between one-line declarations
        if not re.fullmatch(r'[^\n/]*;\n', text) and not text.startswith('#'):
            out.append('\n')
    for e in reversed(cur):
        out.append(cond_close(e))
    # one blank line between items, none after an opening directive
    res = re.sub(r'\n{3,}', '\n\n', ''.join(out))
    res = re.sub(r'(#if[^\n]*\n|#else\n)\n+', r'\1', res)
    res = re.sub(r'\n+(#endif[^\n]*\n)', r'\n\1', res)
    return res


def split(tree):
    src = open(os.path.join(tree, 'mm/mask_alloc.c')).read()
    items = classify(segment(src))
    head_comment = items[0].lines[:]
    # the preamble (pr_fmt, the includes, CREATE_TRACE_POINTS) is rewritten
    body = []
    for it in items:
        t = strip_code(it.text)
        if it.kind in ('pp', 'macro') and re.search(r'#\s*(include|define\s+(pr_fmt|CREATE_TRACE_POINTS))', t):
            continue
        body.append(it)
    items = body
    for it in items:
        if it.names:
            it.target = target_of(it.names[0], it.names)
    nxt = None
    for it in reversed(items):
        if it.target is None:
            it.target = nxt or 'core'
        else:
            nxt = it.target
    owner = {}
    for it in items:
        for n in it.names:
            if it.kind != 'decl':
                owner.setdefault(n, it)
    for it in items:
        for n in it.names:
            owner.setdefault(n, it)
    used = {id(it): uses(it) for it in items}
    hdr_uses = set()
    changed = True
    while changed:
        changed = False
        for it in items:
            if not it.names or it.target == 'H':
                continue
            users = set()
            for jt in items:
                if jt is it or owner.get(jt.names[0] if jt.names else None) is it:
                    continue
                if set(it.names) & used[id(jt)]:
                    users.add(jt.target)
            if set(it.names) & hdr_uses:
                users.add('H')
            if not (users - {it.target}):
                continue
            if it.kind in ('type', 'macro', 'inline', 'pp'):
                it.target = 'H'
                hdr_uses |= used[id(it)]
                changed = True
            elif it.kind in ('func', 'var') and not it.shared and \
                    re.match(r'\s*static\s', strip_code(it.text).lstrip('\n')):
                it.shared = True
                hdr_uses |= set(IDENT.findall(strip_code(signature(it))))
                changed = True
    # forward declarations of shared functions: pool.h has them
    items = [it for it in items if not (it.kind == 'decl' and owner.get(it.names[0]) is not it and
                                        owner[it.names[0]].shared)]
    files = {f: [] for f in FILES + ['H']}
    declared = set()
    for it in items:
        text = it.text
        if it.shared:
            name = it.names[0]
            if name not in declared:
                declared.add(name)
                d = it if it.kind != 'decl' else next(
                    x for x in items if name in x.names and x.kind in ('func', 'var'))
                files['H'].append((it.conds, signature(d)))
            if it.kind == 'decl':
                continue
            text = unstatic(text)
        files[it.target].append((it.conds, text))
    return head_comment, files


def write_tree(tree, head_comment, files):
    d = os.path.join(tree, 'mm/mask_alloc')
    # the trace events exist from the patch that adds them on
    with open(os.path.join(tree, 'mm/mask_alloc.c')) as fh:
        traced = '<trace/events/mask_alloc.h>' in fh.read()
    os.makedirs(d, exist_ok=True)
    overview = ''.join(head_comment)
    built = {}
    for f in FILES:
        if not files[f]:
            continue
        # a file whose every item is under one #ifdef CONFIG_X is built with
        # obj-$(CONFIG_X) instead
        firsts = {c[0][:3] if c else None for c, _ in files[f]}
        built[f] = 'y'
        if len(firsts) == 1 and None not in firsts:
            kw, arg, branch = next(iter(firsts))
            if kw == 'ifdef' and branch == 0 and arg.startswith('CONFIG_') and f != 'core':
                built[f] = arg
                files[f] = [(c[1:], t) for c, t in files[f]]
        body = emit(files[f])
        if f == 'core':
            top = overview.replace('// SPDX-License-Identifier: GPL-2.0\n', '')
            top = top.replace(' * Maskable DMA page allocator.\n',
                              ' * Maskable DMA page allocator: ' + OWNS['core'] + '.\n'
                              ' * The other files of mm/mask_alloc/ each own one concern\n'
                              ' * (search, reserve, wait, holders, boot, debugfs), see their\n'
                              ' * first comment; pool.h holds what they share.\n *\n', 1)
        else:
            top = f'/*\n * {OWNS[f][0].upper()}{OWNS[f][1:]}.\n */\n'
        pre = ['// SPDX-License-Identifier: GPL-2.0\n', top, '\n',
               '#define pr_fmt(fmt) "mask_alloc: " fmt\n\n',
               '#include "internal.h"\n', '#include "pool.h"\n']
        if not traced:
            pass
        elif f == 'core':
            pre += ['\n#define CREATE_TRACE_POINTS\n', '#include <trace/events/mask_alloc.h>\n']
        elif 'trace_mask_' in body:
            pre += ['#include <trace/events/mask_alloc.h>\n']
        with open(os.path.join(d, f + '.c'), 'w') as fh:
            fh.write(''.join(pre) + '\n' + body.strip('\n') + '\n')
    with open(os.path.join(d, 'pool.h'), 'w') as fh:
        fh.write('/* SPDX-License-Identifier: GPL-2.0 */\n'
                 '/*\n * What the files of mm/mask_alloc/ share: the pool\'s state and\n'
                 ' * request, and the functions one of them defines for the others.\n'
                 ' * After internal.h, which is the kernel seen from the allocator.\n */\n'
                 '#ifndef _MM_MASK_ALLOC_POOL_H\n#define _MM_MASK_ALLOC_POOL_H\n\n' +
                 emit(files['H']).strip('\n') + '\n\n#endif /* _MM_MASK_ALLOC_POOL_H */\n')
    os.remove(os.path.join(tree, 'mm/mask_alloc.c'))
    return built


def sub_file(path, subs):
    """Apply the (regex, replacement) pairs to a file, if it exists."""
    if not os.path.exists(path):
        return
    with open(path) as fh:
        text = fh.read()
    new = text
    for a, b in subs:
        new = re.sub(a, b, new)
    if new != text:
        with open(path, 'w') as fh:
            fh.write(new)


def move_rest(tree, split_files):
    d = os.path.join(tree, 'mm/mask_alloc')
    moved = {}
    for old, new in MOVES.items():
        if os.path.exists(os.path.join(tree, 'mm', old)):
            os.rename(os.path.join(tree, 'mm', old), os.path.join(d, new))
            moved[old] = new
    # mm/Makefile: the allocator's objects become mm/mask_alloc/'s
    mk = os.path.join(tree, 'mm/Makefile')
    with open(mk) as fh:
        text = fh.read()
    objname = {'mask_alloc.o': None}
    objname.update({o.replace('.c', '.o'): n.replace('.c', '.o') for o, n in MOVES.items()})
    sub, out = [], []
    text = text.replace('\\\n', '\x00')
    for line in text.split('\n'):
        m = re.match(r'obj-\$\((CONFIG_\w+)\)\s*\+=\s*(.*)$', line)
        objs = m.group(2).replace('\x00', ' ').split() if m else []
        if objs and all(o in objname for o in objs):
            if 'mask_alloc.o' in objs:
                sub.append('obj-y += ' + ' '.join(f + '.o' for f in split_files
                                                  if split_files[f] == 'y'))
                sub += [f'obj-$({c}) += {f}.o' for f, c in split_files.items() if c != 'y']
                out.append(f'obj-$({m.group(1)}) += mask_alloc/')
            else:
                sub.append(f'obj-$({m.group(1)}) += ' + ' '.join(objname[o] for o in objs))
            continue
        out.append(line)
    with open(mk, 'w') as fh:
        fh.write('\n'.join(out).replace('\x00', '\\\n'))
    with open(os.path.join(d, 'Makefile'), 'w') as fh:
        fh.write('# SPDX-License-Identifier: GPL-2.0\n' + '\n'.join(sub) + '\n')
    # references
    paths = {'mm/mask_alloc_internal.h': 'mm/mask_alloc/internal.h'}
    paths.update({'mm/' + o: 'mm/mask_alloc/' + n for o, n in MOVES.items()})
    subs = [(re.escape(a) + r'\b', b) for a, b in paths.items()]
    subs.append((r'mm/mask_alloc\.c\b', 'mm/mask_alloc/'))
    # the same path as a regex in a C string: "mm/mask_alloc\\.c"
    subs.append((r'mm/mask_alloc\\\\\.c', 'mm/mask_alloc/'))
    for root, dirs, names in os.walk(tree):
        rel = os.path.relpath(root, tree)
        # of tools/, only the harness
        keep = {'.': None, 'tools': 'testing', 'tools/testing': 'mask_alloc'}
        if rel in keep:
            dirs[:] = [x for x in dirs if x != '.git' and (keep[rel] is None or x == keep[rel])]
            if rel != '.':
                continue
        for n in names:
            if rel == 'tools/testing/mask_alloc' and n == 'Makefile':
                continue    # below, with the harness
            if n.endswith(('.c', '.h', '.rst', '.txt', 'Makefile', 'README')) or \
                    n.startswith('Kconfig') or n == 'MAINTAINERS':
                sub_file(os.path.join(root, n), subs)
    # moved files: mm/internal.h is one level up now, ours beside them;
    # their first comment names them
    for o, n in moved.items():
        sub_file(os.path.join(d, n), [(r'#include "(internal|slab)\.h"', r'#include "../\1.h"'),
                                      (r'#include "mask_alloc_internal\.h"', '#include "internal.h"'),
                                      (r'^(/\*\n \* )' + re.escape(o) + r' - ', r'\1' + n + ' - ')])
    for root, dirs, names in os.walk(os.path.join(tree, 'mm/tests')):
        for n in names:
            sub_file(os.path.join(root, n),
                     [(r'#include "\.\./mask_alloc_internal\.h"', '#include "../mask_alloc/internal.h"')])
    # the documentation: a kernel-doc directive for each file that exports
    exp = [f for f in split_files if 'EXPORT_SYMBOL' in open(os.path.join(d, f + '.c')).read()]
    sub_file(os.path.join(tree, 'Documentation/core-api/mask-allocator.rst'),
             [(r'\.\. kernel-doc:: mm/mask_alloc/?\n   :export:\n',
               ''.join(f'.. kernel-doc:: mm/mask_alloc/{f}.c\n   :export:\n\n' for f in exp)
               .rstrip('\n') + '\n')])
    # MAINTAINERS: the directory
    sub_file(os.path.join(tree, 'MAINTAINERS'),
             [(r'F:\tmm/mask_alloc/\n((F:\tmm/mask_alloc/\S+\n)*)', 'F:\tmm/mask_alloc/\n')])
    # the harness: its internal.h, and mm/mask_alloc/ as one unit
    h = os.path.join(tree, 'tools/testing/mask_alloc')
    if not os.path.isdir(h):
        return
    if os.path.exists(os.path.join(h, 'mask_alloc_internal.h')):
        os.rename(os.path.join(h, 'mask_alloc_internal.h'), os.path.join(h, 'internal.h'))
    # all the files; those built only with an option, under its #ifdef
    unit = list(split_files)
    kfiles = ' '.join(f + '.c' for f in unit) + ' pool.h'
    sub_file(os.path.join(h, 'Makefile'), [
        (r'KSRC(\s*):= \.\./\.\./\.\./mm/mask_alloc\.c',
         f'KFILES   := {kfiles}\nKSRC\\1:= $(addprefix ../../../mm/mask_alloc/,$(KFILES))'),
        (r'# Userspace harness for mm/mask_alloc\.c: the kernel file compiled unchanged\n'
         r'# \(through a symlink in this directory, so that its #include\n'
         r'# "mask_alloc_internal\.h" finds this directory\'s replacement\)',
         '# Userspace harness for mm/mask_alloc/: the kernel files compiled unchanged\n'
         '# as one unit (mask_alloc.c, through symlinks in this directory, so that\n'
         '# their #include "internal.h" finds this directory\'s replacement)'),
        (r'mask_alloc\.c: \$\(KSRC\)\n\ttest -L \$@ \|\| ln -s \$\(KSRC\) \$@',
         '$(KFILES): %: ../../../mm/mask_alloc/%\n\ttest -L $@ || ln -s ../../../mm/mask_alloc/$@ $@'),
        (r'mask_alloc\.c \$\(KSRC\)', 'mask_alloc.c $(KFILES) $(KSRC)'),
        (r'mask_alloc_internal\.h', 'internal.h'),
        (r'(-instr-profile=fuzz\.profdata) mask_alloc\.c', '\\1 $(filter %.c,$(KFILES))'),
        (r'(bench) mask_alloc\.c \\', r'\1 $(KFILES) \\'),
        (r'and the mask_alloc\.c symlink', 'and the links to mm/mask_alloc/'),
        (r'mm/mask_alloc\.c', 'mm/mask_alloc/'),
    ])
    for n in ('harness.h', 'internal.h', 'README'):
        sub_file(os.path.join(h, n), [(r'mask_alloc_internal\.h', 'internal.h'),
                                      (r'mm/mask_alloc\.c', 'mm/mask_alloc/')])
    sub_file(os.path.join(h, '.gitignore'), [(r'/mask_alloc\.c\n',
             ''.join(f'/{f}\n' for f in kfiles.split()))])
    unity = os.path.join(h, 'mask_alloc.c')
    if os.path.islink(unity):
        os.remove(unity)
    with open(unity, 'w') as fh:
        fh.write('// SPDX-License-Identifier: GPL-2.0\n'
                 '/*\n * mm/mask_alloc/ as one unit for the harness: its files, unchanged,\n'
                 ' * through links in this directory (made by the Makefile), so that\n'
                 ' * their "internal.h" is this directory\'s.\n */\n' +
                 ''.join(f'#include "{f}.c"\n' if split_files[f] == 'y' else
                         f'#ifdef {split_files[f]}\n#include "{f}.c"\n#endif\n' for f in unit))


# A commit message: the paths renamed, and the paragraph of the patch that
# adds the allocator describes the layout.
MSG_SUBS = [
    (r'mm/mask_alloc_internal\.h', 'mm/mask_alloc/internal.h'),
    (r'mm/mask_lend\.c', 'mm/mask_alloc/lend.c'),
    (r'mm/mask_alloc_(debug|bench|stress)\.c', r'mm/mask_alloc/\1.c'),
    (r'mm/mask_alloc/internal\.h lists what the file takes from the rest of mm,\n'
     r'so that a userspace harness can compile it unchanged\.\n'
     r'/sys/kernel/debug/mask_alloc/ has summary, map and timeout_ms\.',
     'The allocator lives in mm/mask_alloc/, a file per concern, each\n'
     'saying in its first comment what it owns: core.c (the pool\'s state,\n'
     'allocation and free, the page allocator\'s hooks), search.c (the summary\n'
     'tree and the search below a limit), boot.c (maskzone= and the memory\n'
     'taken from memblock) and debugfs.c (/sys/kernel/debug/mask_alloc/:\n'
     'summary, map and timeout_ms).  pool.h holds what they share;\n'
     'internal.h lists what they take from the rest of the kernel, so that a\n'
     'userspace harness can compile them unchanged.  Later patches add\n'
     'reserve.c, holders.c and wait.c beside them.'),
    (r'mm/mask_alloc\.c', 'mm/mask_alloc/'),
]


def main():
    if sys.argv[1:] == ['--msg']:
        text = sys.stdin.read()
        for a, b in MSG_SUBS:
            text = re.sub(a, b, text)
        sys.stdout.write(text)
        return 0
    tree = sys.argv[1]
    if '--check' in sys.argv:
        head, files = split(tree)
        for f, g in files.items():
            print(f, len(g), 'items')
        return 0
    head, files = split(tree)
    move_rest(tree, write_tree(tree, head, files))
    return 0


if __name__ == '__main__':
    sys.exit(main())
