#!/usr/bin/env python3
"""make_seed_corpus.py - writes the seed corpora of `make fuzz` (standard library only).

corpus_npy/: the numpy-written fixtures of tests/data/ plus hand-made valid and malformed headers;
corpus_options/: argument lists, one argument a line, as fuzz_options.c splits them.
Run from anywhere: python3 tests/fuzz/make_seed_corpus.py
"""
import os
import shutil
import struct

here = os.path.dirname(os.path.abspath(__file__))


def npy(header, data=b'', major=1):
    h = header.encode('latin1')
    length = struct.pack('<H', len(h)) if major == 1 else struct.pack('<I', len(h))
    return b'\x93NUMPY' + bytes([major, 0]) + length + h + data


npy_cases = {
    'keys_reordered.npy': npy("{'shape': (2,), 'fortran_order': False, 'descr': '<f4'}\n", b'\0' * 8),
    'eight_dims.npy': npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1, 1, 1, 2), }\n",
                          b'\0' * 8),
    'nine_dims.npy': npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1, 1, 1, 1, 1), }\n",
                         b'\0' * 4),
    'negative_dim.npy': npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }\n"),
    'overflow_shape.npy': npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }\n"),
    'huge_dim.npy': npy("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }\n"),
    'unknown_key.npy': npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}\n", b'\0' * 4),
    'header_past_end.npy': b'\x93NUMPY\x01\x00\xff\xff{}',
    'version_9.npy': b'\x93NUMPY\x09\x00\x02\x00{}',
    'trailing_bytes.npy': npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }\n", b'\0' * 6),
    'structured.npy': npy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }\n", b'\0' * 4),
    'v2_double_quotes.npy': npy('{"descr": "<f4", "fortran_order": False, "shape": (3,)}\n', b'\0' * 12, 2),
}

options_cases = {
    'run_defaults': ['--n', '128', '--padding', 'same'],
    'equals_forms': ['--n=5', '--reduce=atomic', '--precision=3xtf32', '--csv'],
    'double': ['--tol', '1e-3', '--out', 'y.npy'],
    'typo': ['--paddin', 'same'],
    'help': ['--n', 'x', '--help'],
    'overflow': ['--n', '99999999999999999999'],
    'twice': ['--n', '5', '--n=6'],
    'missing_value': ['--kernel', '--csv'],
    'positional': ['x.npy'],
    'bad_choice': ['--reduce', 'fast'],
    'negative': ['--kernel', '-1', '--tol=-0.5'],
}

os.makedirs(os.path.join(here, 'corpus_npy'), exist_ok=True)
os.makedirs(os.path.join(here, 'corpus_options'), exist_ok=True)
fixtures = os.path.join(here, '..', 'data')
for name in sorted(os.listdir(fixtures)):
    if name.endswith('.npy'):
        shutil.copyfile(os.path.join(fixtures, name), os.path.join(here, 'corpus_npy', name))
for name, data in npy_cases.items():
    with open(os.path.join(here, 'corpus_npy', name), 'wb') as f:
        f.write(data)
for name, args in options_cases.items():
    with open(os.path.join(here, 'corpus_options', name), 'w') as f:
        f.write('\n'.join(args))
