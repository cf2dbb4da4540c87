#!/usr/bin/python3
"""Writes the .mat fixtures of pipeline/graphio's MAT tests and what scipy
reads back from each (expected.json), the tests' independent oracle.

Run from this directory with Debian's python3-scipy (scipy 1.10.1 made the
committed files):  /usr/bin/python3 make.py

- sparse.mat / sparse_z.mat: savemat without / with do_compression; a 6-node
  weighted, asymmetric sparse `network` (a self-loop, an isolated node) and a
  sparse `group`, plus other kinds of variables.
- dense.mat / dense_z.mat: dense variables of every numeric class, logical,
  1x1, 0x0, and the kinds the reader refuses (char, cell, struct, complex,
  3-D).
- sparse_be.mat: sparse.mat converted to big-endian byte order here (scipy
  writes native order only); scipy reads it back to the same values, which
  checks the conversion.
- bad_*.mat: files whose `network` (or `group`) LoadMAT refuses: not square,
  negative, missing, a char array; `group` with another number of rows.
- v4.mat: savemat(format='4'), a MATLAB Level 4 file.
- v73.mat: a MATLAB v7.3 header (version 0x0200) before an HDF5 signature at
  byte 512, as MATLAB writes them (h5py is not installed to write a whole one).

expected.json maps file -> variable -> {"shape", "triples": [[i, j, v], ...]}
(0-based, the nonzeros in column-major order) for what loadmat returns as a
2-D real numeric or sparse matrix, or {"kind": ...} for the rest.
"""
import io
import json
import struct
import sys

import numpy as np
import scipy
import scipy.io
import scipy.sparse as sp


def network():
    a = np.zeros((6, 6))
    for i, j, w in [(0, 1, 1.0), (1, 0, 1.0), (1, 2, 2.5), (2, 1, 2.5), (2, 3, 1.0),
                    (3, 2, 4.0), (3, 3, 7.0), (0, 4, 0.5)]:  # (2,3)/(3,2) differ; (0,4) has no mirror; node 5 isolated
        a[i, j] = w
    return sp.csc_matrix(a)


def sparse_vars():
    g = np.zeros((6, 3))
    g[[0, 1, 2, 3, 4, 5, 0], [0, 0, 1, 2, 1, 2, 2]] = 1
    return {
        "network": network(),
        "group": sp.csc_matrix(g),
        "logical": sp.csc_matrix(np.array([[True, False, True], [False, False, True]])),
        "empty_sparse": sp.csc_matrix((3, 4)),
        "title": "a char array",
    }


def dense_vars():
    m = np.array([[0, 1, 0], [1, 0, 2], [0, 2, 0]])
    return {
        "network": m.astype(np.float64),
        "f32": np.array([[1.5, 0], [0, -2.25]], dtype=np.float32),
        "i8": np.array([[-3, 0, 5]], dtype=np.int8),
        "u8": np.array([[0, 200], [7, 0]], dtype=np.uint8),
        "i16": np.array([[-300], [0], [12]], dtype=np.int16),
        "u16": np.array([[65535, 1]], dtype=np.uint16),
        "i32": np.array([[-70000, 0, 3]], dtype=np.int32),
        "u32": np.array([[4000000000]], dtype=np.uint32),
        "i64": np.array([[-(2 ** 40), 9]], dtype=np.int64),
        "u64": np.array([[2 ** 50]], dtype=np.uint64),
        "flags": np.array([[True, False], [True, True]]),
        "one": np.array([[3.0]]),
        "empty": np.zeros((0, 0)),
        "text": "hello",
        "cplx": np.array([[1 + 2j, 0]]),
        "cellv": np.array([1.0, "x"], dtype=object),
        "rec": {"a": 1.0, "b": "z"},
        "cube": np.arange(8.0).reshape(2, 2, 2),
    }


def describe(v):
    if sp.issparse(v) or (isinstance(v, np.ndarray) and v.dtype.kind in "biuf" and v.ndim == 2):
        m = sp.csc_matrix(v, dtype=np.float64)
        m.sum_duplicates()
        coo = m.tocoo()
        order = np.lexsort((coo.row, coo.col))
        triples = [[int(coo.row[k]), int(coo.col[k]), float(coo.data[k])] for k in order if coo.data[k] != 0]
        return {"shape": list(m.shape), "triples": triples}
    if isinstance(v, np.ndarray):
        if v.dtype.kind == "c":
            return {"kind": "complex"}
        if v.dtype.kind in "US":
            return {"kind": "char"}
        if v.dtype.kind == "O":
            return {"kind": "cell"}
        if v.dtype.kind == "V":
            return {"kind": "struct"}
        if v.ndim != 2:
            return {"kind": "nd"}
    raise ValueError(f"unexpected {type(v)} {getattr(v, 'dtype', None)}")


# miXXX element types and their item formats, for the byte-order conversion.
ITEM = {1: "b", 2: "B", 3: "h", 4: "H", 5: "i", 6: "I", 7: "f", 9: "d", 12: "q", 13: "Q", 16: "B"}


def swap_elements(buf):
    """Returns the little-endian data elements in buf in big-endian order."""
    out, p = bytearray(), 0
    while p < len(buf):
        typ, size = struct.unpack_from("<II", buf, p)
        if typ >> 16:  # small element: 2-byte size and type, 4 bytes of data
            size, typ = typ >> 16, typ & 0xFFFF
            data = buf[p + 4:p + 4 + size]
            n = size // struct.calcsize(ITEM[typ])
            out += struct.pack(">HH", size, typ) + struct.pack(">" + ITEM[typ] * n, *struct.unpack("<" + ITEM[typ] * n, data)).ljust(4, b"\0")
            p += 8
            continue
        data = buf[p + 8:p + 8 + size]
        if typ == 14:
            body = swap_elements(data)
        elif typ == 15:
            raise ValueError("convert an uncompressed file")
        else:
            n = size // struct.calcsize(ITEM[typ])
            body = struct.pack(">" + ITEM[typ] * n, *struct.unpack("<" + ITEM[typ] * n, data))
        out += struct.pack(">II", typ, size) + body + b"\0" * (-size % 8)
        p += 8 + size + (-size % 8)
    return bytes(out)


def to_big_endian(raw):
    assert raw[126:128] == b"IM"
    return raw[:124] + struct.pack(">H", 0x0100) + b"MI" + swap_elements(raw[128:])


def v73_header():
    text = b"MATLAB 7.3 MAT-file, Platform: GLNXA64, Created on: Mon Nov 23 22:00:00 2026 HDF5 schema 1.00 ."
    head = text.ljust(116, b" ") + b"\0" * 8 + struct.pack("<H", 0x0200) + b"IM"
    return head.ljust(512, b"\0") + b"\x89HDF\r\n\x1a\n" + b"\0" * 88


def save(variables, compress):
    b = io.BytesIO()
    scipy.io.savemat(b, variables, do_compression=compress, oned_as="row")
    return b.getvalue()


def main():
    files = {
        "sparse.mat": save(sparse_vars(), False),
        "sparse_z.mat": save(sparse_vars(), True),
        "dense.mat": save(dense_vars(), False),
        "dense_z.mat": save(dense_vars(), True),
    }
    files["sparse_be.mat"] = to_big_endian(files["sparse.mat"])
    # Files whose `network` LoadMAT refuses.
    files["bad_nonsquare.mat"] = save({"network": sp.csc_matrix(np.ones((2, 3)))}, False)
    files["bad_negative.mat"] = save({"network": sp.csc_matrix(np.array([[0, -1.0], [-1.0, 0]]))}, False)
    files["bad_nonetwork.mat"] = save({"group": sp.csc_matrix(np.eye(2))}, False)
    files["bad_groupsize.mat"] = save({"network": sp.csc_matrix(np.ones((2, 2))), "group": sp.csc_matrix(np.eye(3))}, False)
    files["bad_char.mat"] = save({"network": "not a matrix"}, False)
    # A `group` coded +1/-1, which LoadMAT refuses.
    files["bad_group_pm1.mat"] = save({"network": sp.csc_matrix(np.ones((2, 2)) - np.eye(2)), "group": sp.csc_matrix(np.array([[1.0, -1], [-1, 1]]))}, False)
    b = io.BytesIO()
    scipy.io.savemat(b, {"network": np.eye(2)}, format="4")
    files["v4.mat"] = b.getvalue()
    files["v73.mat"] = v73_header()
    expected = {}
    for name, raw in files.items():
        with open(name, "wb") as f:
            f.write(raw)
        if name in ("v4.mat", "v73.mat"):
            continue
        got = scipy.io.loadmat(io.BytesIO(raw))
        expected[name] = {k: describe(v) for k, v in sorted(got.items()) if not k.startswith("__")}
    assert expected["sparse_be.mat"] == expected["sparse.mat"], "the big-endian copy reads differently"
    with open("expected.json", "w") as f:  # one line per variable
        f.write('{"scipy": %s, "files": {\n' % json.dumps(scipy.__version__))
        f.write(",\n".join('%s: {\n%s\n}' % (json.dumps(name), ",\n".join(
            " %s: %s" % (json.dumps(k), json.dumps(v)) for k, v in sorted(vs.items())))
            for name, vs in sorted(expected.items())))
        f.write("\n}}\n")


if __name__ == "__main__":
    sys.exit(main())
