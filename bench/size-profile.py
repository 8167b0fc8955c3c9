#!/usr/bin/env python3
"""What the app's WebAssembly is made of: bytes by crate, by module of our own
crates, and the largest data segments with what they hold (bench/SIZE.md).

Reads `twiggy top --format csv` of a module that keeps its `name` section:
  - target/wasm-bindgen/release/pep-app_bg.wasm: wasm-bindgen's output, the
    input of wasm-opt (after `trunk build --release`);
  - `wasm-opt -Oz -g` of that file: the shipped module's code and data, with names.
Usage: python3 bench/size-profile.py MODULE.wasm   (twiggy on PATH: cargo install twiggy)

Attribution is by the first crate named in each function's demangled name
(`<tachys::… as core::…>::f` → tachys; `core::ptr::drop_in_place<leptos::…>` →
leptos); generic std code instantiated for a closure of ours has no crate in its
name and counts as std. Inlining moves bytes into callers (after wasm-opt,
`pep_app::doc::Doc::load` holds most of `envelope::parse`), so the pre-wasm-opt
module is the better guide to who owns what; removal experiments (SIZE.md) are
the measure of what moving something out would save.
"""
import collections
import csv
import io
import re
import subprocess
import sys
import zlib

STD = {'core', 'alloc', 'std', 'compiler_builtins', 'dlmalloc', 'hashbrown', '__rustc', 'panic_abort', 'rustc_demangle'}
GROUPS = [
    ('leptos_router', 'leptos_router'),
    ('tachys', 'Leptos views (tachys)'),
    ('reactive_graph', 'Leptos reactivity (reactive_graph)'),
    ('leptos|leptos_dom|either_of|oco_ref|guardian|send_wrapper|futures_util|futures_channel|futures_core|futures_io|futures_task'
     '|any_spawner|throw_error|slotmap|or_poisoned|hydration_context|reactive_stores|leptos_server|server_fn|wasm_split_helpers',
     'leptos + async runtime (leptos, futures, any_spawner, …)'),
    ('serde_json|serde_core|serde|indexmap|zmij|itoa|ryu|memchr', 'serde_json (preserve_order, arbitrary_precision) + indexmap'),
    ('pulldown_cmark|pulldown_cmark_escape|unicase', 'pulldown-cmark + unicase (code)'),
    ('wasm_bindgen|js_sys|web_sys|wasm_streams|js|gloo_storage|gloo_utils|console_error_panic_hook|wasm_bindgen_futures',
     'wasm-bindgen / js-sys / web-sys glue'),
    ('std:(alloc|hashbrown|dlmalloc)', 'std: alloc, collections, allocator'),
    ('std:(core|std|__rustc)|other:.*', 'std: core (fmt, str, iter, closures’ generic code, panics)'),
    ('wasm-structure', 'wasm tables, types, imports, exports'),
]


def crate_of(name):
    if name.startswith('data segment'):
        return 'data'
    if 'subsection' in name:
        return None  # the name section itself
    # path heads only: a name not preceded by `::` or an identifier character
    toks = re.findall(r'(?<![A-Za-z0-9_:])([A-Za-z_][A-Za-z0-9_]*)(?:\[[0-9a-f]+\])?::', name)
    for t in toks:
        if t not in STD and t[0].islower():
            return t
    if toks:
        return 'std:' + toks[0]
    if name.startswith(('elem', 'table', 'type', 'import', 'export', 'global', 'memory', 'code section', 'wasm magic',
                        'custom section', 'start')):
        return 'wasm-structure'
    return 'other:' + name[:40]


def group_of(crate, name):
    if crate in ('envelope', 'pep_app'):
        m = re.search(re.escape(crate) + r'(?:\[[0-9a-f]+\])?::([a-z_0-9]+)(?:::([a-z_0-9]+))?', name)
        if not m:
            return crate
        mod = m.group(1)
        if crate == 'pep_app' and mod == 'components' and m.group(2):
            mod += '::' + m.group(2)
        return f'{crate}::{mod}'
    for pat, g in GROUPS:
        if re.fullmatch(pat, crate):
            return g
    return 'other crates: ' + crate


def leb(b, i):
    r = s = 0
    while True:
        x = b[i]
        i += 1
        r |= (x & 0x7f) << s
        s += 7
        if x < 0x80:
            return r, i


def data_segments(path):
    """(index, bytes) of each active data segment."""
    b = open(path, 'rb').read()
    i, segs = 8, []
    while i < len(b):
        sid = b[i]
        n, i = leb(b, i + 1)
        end = i + n
        if sid == 11:
            cnt, j = leb(b, i)
            for k in range(cnt):
                flag, j = leb(b, j)
                if flag == 0:
                    j += 1  # i32.const
                    while b[j] & 0x80:
                        j += 1
                    j += 2  # last byte of the constant, `end`
                sz, j = leb(b, j)
                segs.append((k, b[j:j + sz]))
                j += sz
        i = end
    return segs


def what_is(data):
    if b'CapitalDifferentialD' in data:
        return "pulldown-cmark's HTML entity table (+ neighbours)"
    if b'LazyCell instance has previously been poisoned' in data:
        return 'core unicode tables (printable, case) + panic strings'
    text = sum(len(m) for m in re.findall(rb'[ -~]{6,}', data))
    if text < len(data) * 0.05:
        return 'binary tables (f64 parse/format: powers of 5 and 10)'
    return 'strings (messages, class names, markup) and small tables'


def main():
    path = sys.argv[1]
    out = subprocess.run(['twiggy', 'top', '-n', '1000000', '--format', 'csv', path], check=True, capture_output=True, text=True).stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    by_group, by_crate, total = collections.Counter(), collections.Counter(), 0
    for r in rows:
        name, size = r['Name'], int(r['ShallowSize'])
        c = crate_of(name)
        if c is None:
            continue
        total += size
        by_crate[c] += size
        by_group[group_of(c, name) if c != 'data' else 'data segments'] += size
    print(f'{path}: {total} bytes without the name section')
    print('\n| bytes | % | group |\n|---:|---:|---|')
    for g, s in by_group.most_common():
        if s >= 500:
            print(f'| {s:,} | {100 * s / total:.1f} | {g} |')
    print('\n| bytes | gzip alone | largest data segments |\n|---:|---:|---|')
    for k, d in sorted(data_segments(path), key=lambda x: -len(x[1]))[:6]:
        print(f'| {len(d):,} | {len(zlib.compress(d, 9)):,} | #{k}: {what_is(d)} |')


if __name__ == '__main__':
    main()
