"""_lib.py - libcgp.so for Python: where it is looked for, the ctypes declarations of
include/cgp.h, cgp.Error, and the checks that those declarations match the header and the
library (tests/python/test_module.py and `scripts/torch_compare.py --check-lib` run them).
"""
import collections
import ctypes
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))


# ---- include/cgp.h, declared for ctypes ----------------------------------------------------------
class Shape(ctypes.Structure):
    _fields_ = [("n", ctypes.c_int64), ("cin", ctypes.c_int64), ("cout", ctypes.c_int64),
                ("h", ctypes.c_int64), ("w", ctypes.c_int64)]


class Options(ctypes.Structure):  # enums are int-sized
    _fields_ = [("padding", ctypes.c_int), ("reduce", ctypes.c_int), ("precision", ctypes.c_int),
                ("kernel", ctypes.c_int), ("select", ctypes.c_int)]


class Candidate(ctypes.Structure):  # what a plan's kernel selection considered (cgp_plan_candidates)
    _fields_ = [("version", ctypes.c_int), ("name", ctypes.c_char_p), ("unsupported", ctypes.c_char_p),
                ("median_ms", ctypes.c_float)]


STRUCTS = {"cgp_shape": Shape, "cgp_options": Options, "cgp_candidate": Candidate}

ENUMS = {
    "cgp_status": {"CGP_SUCCESS": 0, "CGP_ERROR_NULL_POINTER": 1, "CGP_ERROR_INVALID_SHAPE": 2,
                   "CGP_ERROR_INVALID_OPTION": 3, "CGP_ERROR_MISALIGNED": 4, "CGP_ERROR_WORKSPACE_TOO_SMALL": 5,
                   "CGP_ERROR_UNSUPPORTED": 6, "CGP_ERROR_CUDA": 7, "CGP_ERROR_INVALID_PLAN": 8,
                   "CGP_ERROR_OUT_OF_HOST_MEMORY": 9},
    "cgp_padding": {"CGP_PADDING_VALID": 0, "CGP_PADDING_SAME": 1},
    "cgp_reduce": {"CGP_REDUCE_DET": 0, "CGP_REDUCE_ATOMIC": 1},
    "cgp_precision": {"CGP_PRECISION_FP32": 0, "CGP_PRECISION_TF32": 1, "CGP_PRECISION_TF32X3": 2},
    "cgp_select": {"CGP_SELECT_HEURISTIC": 0, "CGP_SELECT_MEASURED": 1},
}
STATUS_NAMES = {value: name for name, value in ENUMS["cgp_status"].items()}
CGP_SUCCESS = ENUMS["cgp_status"]["CGP_SUCCESS"]

# the keyword values of cgp.conv_gelu_mean and the enum constant each one selects
CHOICES = {
    "padding": ("cgp_padding", {"valid": "CGP_PADDING_VALID", "same": "CGP_PADDING_SAME"}),
    "precision": ("cgp_precision", {"fp32": "CGP_PRECISION_FP32", "tf32": "CGP_PRECISION_TF32",
                                    "3xtf32": "CGP_PRECISION_TF32X3"}),
    "reduce": ("cgp_reduce", {"det": "CGP_REDUCE_DET", "atomic": "CGP_REDUCE_ATOMIC"}),
    "select": ("cgp_select", {"heuristic": "CGP_SELECT_HEURISTIC", "measured": "CGP_SELECT_MEASURED"}),
}

_p = ctypes.POINTER
_ptr = ctypes.c_void_p  # cgp_plan *, device pointers and cudaStream_t travel as integers
FUNCTIONS = {  # name: (restype, argtypes)
    "cgp_version": (ctypes.c_int, []),
    "cgp_default_options": (Options, []),
    "cgp_output_height": (ctypes.c_int64, [_p(Shape), ctypes.c_int]),
    "cgp_output_width": (ctypes.c_int64, [_p(Shape), ctypes.c_int]),
    "cgp_plan_create": (ctypes.c_int, [_p(_ptr), _p(Shape), _p(Options)]),
    "cgp_plan_create_measured": (ctypes.c_int, [_p(_ptr), _p(Shape), _p(Options), _ptr, _ptr, _ptr, _ptr, _ptr]),
    "cgp_plan_workspace_size": (ctypes.c_int, [_ptr, _p(ctypes.c_size_t)]),
    "cgp_plan_kernel": (ctypes.c_int, [_ptr, _p(ctypes.c_int), _p(ctypes.c_char_p)]),
    "cgp_plan_kernel_kind": (ctypes.c_int, [_ptr, _p(ctypes.c_char_p)]),
    "cgp_plan_candidates": (ctypes.c_int, [_ptr, _p(_p(Candidate)), _p(ctypes.c_int), _p(ctypes.c_int)]),
    "cgp_plan_run": (ctypes.c_int, [_ptr, _ptr, _ptr, _ptr, _ptr, _ptr, ctypes.c_size_t, _ptr]),
    "cgp_plan_destroy": (ctypes.c_int, [_ptr]),
    "cgp_status_string": (ctypes.c_char_p, [ctypes.c_int]),
    "cgp_last_error_detail": (ctypes.c_char_p, []),
}


# the enum values of one call's options, in the order of CHOICES (a plan's key holds them)
OptionValues = collections.namedtuple("OptionValues", "padding precision reduce select")
_option_values = {}  # (padding, precision, reduce, select) as given -> their OptionValues, for those that passed


def option_values(padding, precision, reduce, select):
    """("same", "fp32", "det", "heuristic") -> OptionValues(padding=1, ...); ValueError naming the first
    keyword whose value is not one of its choices. Values that passed once are looked up, not checked again."""
    given = (padding, precision, reduce, select)
    try:
        values = _option_values.get(given)
    except TypeError:  # an unhashable value, which is no choice: named below
        values = None
    if values is None:
        values = OptionValues(*(_option_value(keyword, value) for keyword, value in zip(OptionValues._fields, given)))
        _option_values[given] = values
    return values


def _option_value(keyword, value):
    enum, names = CHOICES[keyword]
    if not isinstance(value, str) or value not in names:
        raise ValueError("%s must be one of %s, got %r" % (keyword, ", ".join(map(repr, names)), value))
    return ENUMS[enum][names[value]]


class Error(RuntimeError):
    """A libcgp call failed. function: the C function; status: its cgp_status (None when the loaded
    library lacks the function); status_name: e.g. "CGP_ERROR_INVALID_SHAPE"; detail: the library's
    cgp_last_error_detail(), or what was missing."""

    def __init__(self, function, status, detail, description=None):
        self.function, self.status, self.detail = function, status, detail
        if status is None:
            self.status_name = None
            super().__init__("%s: unavailable: %s" % (function, detail))
        else:
            self.status_name = STATUS_NAMES.get(status, "status %d" % status)
            super().__init__("%s: %s (%s): %s" % (function, self.status_name, description, detail))


# ---- loading -------------------------------------------------------------------------------------
class Library:
    """The loaded libcgp.so: fn(name) resolves a declared function at its first use (so a library
    without cgp_plan_create_measured serves everything else), call(name, ...) raises Error on a
    status other than CGP_SUCCESS, as check(name, status) does for a status got by calling fn(name)."""

    def __init__(self, path):
        self.path = path
        self._cdll = ctypes.CDLL(path)
        self._fns = {}

    def fn(self, name):
        fn = self._fns.get(name)
        if fn is None:
            restype, argtypes = FUNCTIONS[name]
            try:
                fn = getattr(self._cdll, name)
            except AttributeError:
                raise Error(name, None, "%s does not export it (built before the function was added?)"
                            % self.path) from None
            fn.restype, fn.argtypes = restype, argtypes
            self._fns[name] = fn
        return fn

    def version(self):
        return self.fn("cgp_version")()

    def call(self, name, *args):
        self.check(name, self.fn(name)(*args))

    def check(self, name, status):
        """Raises Error for the status `name` returned, unless it is CGP_SUCCESS."""
        if status != CGP_SUCCESS:
            detail = self.fn("cgp_last_error_detail")().decode(errors="replace")
            raise Error(name, status, detail, self.fn("cgp_status_string")(status).decode(errors="replace"))


def version_string(number):
    """cgp_version()'s MAJOR * 1000 + MINOR as "MAJOR.MINOR"."""
    return "%d.%d" % divmod(number, 1000)


def candidates():
    """(where, path) pairs, in the order they are tried."""
    env = os.environ.get("CGP_LIBRARY")
    if env:
        return [("CGP_LIBRARY", env)]
    return [("next to the package", os.path.join(HERE, "libcgp.so")),
            ("the repository's build/", os.path.join(os.path.dirname(os.path.dirname(HERE)), "build", "libcgp.so"))]


def load(package_version):
    """The first libcgp.so of candidates() that exists, loaded, with its version checked against
    the package's MAJOR.MINOR. ImportError says what was looked for and what was wrong."""
    tried = [] if os.environ.get("CGP_LIBRARY") else ["CGP_LIBRARY is not set"]
    for where, path in candidates():
        if not os.path.isfile(path):
            tried.append("%s: %s (no such file)" % (where, path))
            continue
        try:
            lib = Library(path)
            number = lib.version()
        except OSError as e:
            raise ImportError("cgp: cannot load libcgp.so (%s: %s): %s" % (where, path, e)) from None
        except Error:
            raise ImportError("cgp: %s (%s) has no cgp_version(): it is older than libcgp 0.2, and this cgp "
                              "package %s needs libcgp %s; rebuild it (make build/libcgp.so)"
                              % (path, where, package_version, ".".join(package_version.split(".")[:2]))) from None
        want = ".".join(package_version.split(".")[:2])
        if version_string(number) != want:
            raise ImportError("cgp: %s (%s) is libcgp %s, but this cgp package is %s and needs libcgp %s; "
                              "rebuild the library or reinstall the package from the same tree"
                              % (path, where, version_string(number), package_version, want))
        return lib
    raise ImportError("cgp: libcgp.so not found; looked for: %s. Build it with `make build/libcgp.so` and set "
                      "CGP_LIBRARY to its path, or `pip install ./python` after `make`" % "; ".join(tried))


# ---- the declarations against include/cgp.h and against the library -------------------------------
def _ctype(text, enums):
    """The ctypes type this module uses for a C type of cgp.h ("const cgp_shape *" -> POINTER(Shape))."""
    stars = text.count("*")
    base = " ".join(text.replace("*", " ").replace("const", " ").split())
    if base in ("cgp_plan", "float", "void") and stars >= 1:  # opaque and device pointers: integers
        kind, stars = _ptr, stars - 1
    elif base == "char" and stars >= 1:
        kind, stars = ctypes.c_char_p, stars - 1
    elif base == "cudaStream_t":
        kind = _ptr
    elif base in enums:
        kind = ctypes.c_int
    elif base in STRUCTS:
        kind = STRUCTS[base]
    else:
        kind = {"int": ctypes.c_int, "int64_t": ctypes.c_int64, "size_t": ctypes.c_size_t,
                "float": ctypes.c_float}.get(base)
        if kind is None:
            return None
    for _ in range(stars):
        kind = ctypes.POINTER(kind)
    return kind


def _type_name(kind):
    return "None" if kind is None else kind.__name__


def _declaration(text):
    """"const float * x" -> ("const float *", "x"): a declarator's type and name."""
    kind, name = re.match(r"\s*(.*?)\s*(\w+)\s*$", " ".join(text.replace("*", " * ").split())).groups()
    return kind.replace("* *", "**"), name


def _parse_header(text):
    """-> (defines, enums, structs, functions) of cgp.h's text. enums: {name: {constant: value}};
    structs: {name: [(field, C type)]}; functions: {name: (return C type, [parameter C types])}."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    defines = dict(re.findall(r"^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+(\S+)", text, flags=re.M))
    text = re.sub(r"^\s*#[^\n]*", " ", text, flags=re.M)
    enums, structs, functions = {}, {}, {}
    for body, name in re.findall(r"typedef\s+enum\s+\w*\s*\{(.*?)\}\s*(\w+)\s*;", text, flags=re.S):
        values, next_value = {}, 0
        for item in filter(None, (i.strip() for i in body.split(","))):
            constant, _, value = (part.strip() for part in item.partition("="))
            next_value = int(value, 0) if value else next_value
            values[constant] = next_value
            next_value += 1
        enums[name] = values
    for body, name in re.findall(r"typedef\s+struct\s+\w*\s*\{(.*?)\}\s*(\w+)\s*;", text, flags=re.S):
        fields = []
        for decl in filter(None, (d.strip() for d in body.split(";"))):
            first, *more = decl.split(",")  # "int64_t n, cin": the others share the first one's base type
            kind, field = _declaration(first)
            fields.append((field, kind))
            base = kind.rstrip("* ")
            fields += [(field, (base + " " + stars).strip()) for stars, field in
                       (_declaration(item) for item in more)]
        structs[name] = fields
    text = re.sub(r"typedef\s+(enum|struct)\s+\w*\s*\{.*?\}\s*\w+\s*;", " ", text, flags=re.S)
    text = re.sub(r"typedef[^;]*;", " ", text)
    for ret, name, params in re.findall(r"([A-Za-z_][\w\s*]*?)\s*\b(cgp_\w+)\s*\(([^)]*)\)\s*;", text):
        params = " ".join(params.split())
        types = [] if params == "void" else [_declaration(p)[0] for p in params.split(",")]
        functions[name] = (" ".join(ret.replace("*", " * ").split()).replace("* *", "**"), types)
    return defines, enums, structs, functions


def header_problems(path, package_version):
    """The ctypes declarations above against the header at `path` (include/cgp.h): every function,
    its return and parameter types, every struct field, every enum constant and its value, and
    CGP_VERSION_MAJOR.MINOR against the package's version. Returns a list of problems (empty: they
    match)."""
    with open(path) as f:
        defines, enums, structs, functions = _parse_header(f.read())
    problems = []
    header_version = "%s.%s" % (defines.get("CGP_VERSION_MAJOR"), defines.get("CGP_VERSION_MINOR"))
    if header_version != ".".join(package_version.split(".")[:2]):
        problems.append("CGP_VERSION_MAJOR.MINOR is %s in %s, the package is %s" % (header_version, path,
                                                                                     package_version))
    for name in sorted(set(ENUMS) | set(enums)):
        if ENUMS.get(name) != enums.get(name):
            problems.append("enum %s: cgp.h has %s, ctypes %s" % (name, enums.get(name), ENUMS.get(name)))
    for name in sorted(set(STRUCTS) | set(structs)):
        declared = [(f, _type_name(t)) for f, t in STRUCTS[name]._fields_] if name in STRUCTS else None
        header = [(f, _type_name(_ctype(t, enums))) for f, t in structs[name]] if name in structs else None
        if declared != header:
            problems.append("struct %s: cgp.h has fields %s, ctypes %s" % (name, header, declared))
    for name in sorted(set(FUNCTIONS) | set(functions)):
        if name not in functions:
            problems.append("%s: declared for ctypes, not in cgp.h" % name)
            continue
        if name not in FUNCTIONS:
            problems.append("%s: in cgp.h, not declared for ctypes" % name)
            continue
        ret, params = functions[name]
        header = (_type_name(_ctype(ret, enums)), [_type_name(_ctype(p, enums)) for p in params])
        restype, argtypes = FUNCTIONS[name]
        declared = (_type_name(restype), [_type_name(a) for a in argtypes])
        if header != declared:
            problems.append("%s: cgp.h %s(%s) is %s, ctypes %s" % (name, ret, ", ".join(params), header, declared))
    return problems


def library_problems(lib, package_version):
    """Calls that need no GPU and show whether the declarations sit where the loaded library reads
    them: default options, output sizes, a status string, and each option and shape field set alone
    to a bad value being the one the library's detail names. Returns a list of problems."""
    problems = []
    if version_string(lib.version()) != ".".join(package_version.split(".")[:2]):
        problems.append("cgp_version() is %s, the package %s" % (version_string(lib.version()), package_version))
    o = lib.fn("cgp_default_options")()
    got = tuple(getattr(o, f) for f, _ in Options._fields_)
    if got != (0,) * len(Options._fields_):
        problems.append("cgp_default_options() gave %s = %r, expected all 0" % ([f for f, _ in Options._fields_], got))
    s = Shape(2, 3, 4, 9, 11)
    got = (lib.fn("cgp_output_height")(ctypes.byref(s), 0), lib.fn("cgp_output_width")(ctypes.byref(s), 1))
    if got != (7, 11):
        problems.append("cgp_output_height/width of H=9 valid, W=11 same gave %r, expected (7, 11)" % (got,))
    if lib.fn("cgp_status_string")(0) != b"success":
        problems.append("cgp_status_string(0) is %r" % lib.fn("cgp_status_string")(0))

    def refused(shape, options, status, word, what):
        plan = _ptr()
        try:
            lib.call("cgp_plan_create", ctypes.byref(plan), ctypes.byref(shape), ctypes.byref(options))
            problems.append("%s: cgp_plan_create succeeded" % what)
            lib.call("cgp_plan_destroy", plan)
        except Error as e:
            if e.status != ENUMS["cgp_status"][status] or word not in e.detail:
                problems.append("%s: %s, expected %s naming %s" % (what, e, status, word))

    for field, value in (("padding", 5), ("reduce", 7), ("precision", 9), ("kernel", -1)):
        bad = Options()
        setattr(bad, field, value)
        refused(s, bad, "CGP_ERROR_INVALID_OPTION", field, "options.%s = %d" % (field, value))
    for i, (field, word) in enumerate((("n", "N"), ("cin", "Cin"), ("cout", "Cout"), ("h", "H"), ("w", "W"))):
        dims = [2, 3, 4, 9, 11]
        dims[i] = -7
        refused(Shape(*dims), Options(), "CGP_ERROR_INVALID_SHAPE", "%s=-7" % word, "shape.%s = -7" % field)
    return problems
