#!/usr/bin/env python3
"""make_seed_corpus.py - writes the seed corpora of `make fuzz` (standard library only).

corpus_npy/: the numpy-written fixtures of tests/data/ plus hand-made valid and malformed headers;
corpus_options/: argument lists, one argument a line, as fuzz_options.c splits them;
corpus_csv/: CSV files for the reader (quoting, line breaks, BOM, malformed records);
corpus_zoo/: zoo files (host/bench/zoo.csv, and hand-made valid and malformed shapes).
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

csv_cases = {
    'plain.csv': b'a,b,c\n1,2,3\n4,5,6\n',
    'crlf.csv': b'name,median_ms\r\nx,1.5\r\n\r\ny,2\r\n',
    'quoted.csv': b'"a,1","b ""q""",c\n"line\nbreak",,"x"\n',
    'bom.csv': b'\xef\xbb\xbfa,b\n1,2\n',
    'empty_lines.csv': b'a\n\n\n1\n\n2',
    'header_only.csv': b'a,b\n',
    'quote_in_field.csv': b'a,b\n1,x"y\n',
    'after_quote.csv': b'a,b\n"1"x,2\n',
    'unclosed.csv': b'a,b\n"1,2\n',
    'nul.csv': b'a,b\n1,\x002\n',
    'short_record.csv': b'a,b,c\n1,2\n',
    'empty.csv': b'',
}

zoo_cases = {
    'minimal.csv': b'n,cin,cout,h,w,padding\n1,1,1,3,3,valid\n',
    'reordered.csv': b'padding,w,h,cout,cin,n,label\nsame,1,1,1,1,1,"a, ""quoted"" label"\n',
    'largest.csv': b'n,cin,cout,h,w,padding\n1099511627776,1,1,1099511627776,3,valid\n',
    'too_large.csv': b'n,cin,cout,h,w,padding\n1099511627777,1,1,3,3,valid\n',
    'no_pixel.csv': b'n,cin,cout,h,w,padding\n1,1,1,2,5,valid\n',
    'bad_padding.csv': b'n,cin,cout,h,w,padding\n1,1,1,3,3,full\n',
    'signed.csv': b'n,cin,cout,h,w,padding\n+1,1,1,3,3,valid\n',
    'missing_column.csv': b'n,cin,cout,h,padding\n1,1,1,3,valid\n',
    'no_shape.csv': b'n,cin,cout,h,w,padding\n',
    'long_label.csv': b'n,cin,cout,h,w,padding,label\n1,1,1,3,3,same,' + b'x' * 100 + b'\n',
    # fuzz_zoo's first crash (a message of several lines), as tests/cpu/cpu_zoo.c keeps it
    'field_line_breaks.csv': b'n,cin,cout,h,w,padding\n1,"\n,\n\n0a",1,3,3,valid\n',
}

for corpus in ('corpus_npy', 'corpus_options', 'corpus_csv', 'corpus_zoo'):
    os.makedirs(os.path.join(here, corpus), exist_ok=True)
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
for corpus, cases in (('corpus_csv', csv_cases), ('corpus_zoo', zoo_cases)):
    for name, data in cases.items():
        with open(os.path.join(here, corpus, name), 'wb') as f:
            f.write(data)
shutil.copyfile(os.path.join(here, '..', '..', 'host', 'bench', 'zoo.csv'), os.path.join(here, 'corpus_zoo', 'zoo.csv'))
shutil.copyfile(os.path.join(here, '..', '..', 'host', 'bench', 'zoo.csv'), os.path.join(here, 'corpus_csv', 'zoo.csv'))
