"""Every public function and class of the documented ``fast`` modules (and of ``spec.report`` and ``spec.registry``)
carries numpydoc Parameters (when it takes arguments), Returns (when it returns a value) and Examples; the documented
parameters are the signature's.

Public = in the module's ``__all__`` (re-exports included: a user reads them there), else every name not starting
with an underscore that the module defines.  The public methods of those classes that this library defines (the
estimators' fit, predict, ...; the ledgers' spend, charge, ...; the rado sources' privacy_spent, ...) are held to
the same rule.  A function or method of fast/ or reference/ whose own body raises names each class it raises in a
Raises section (the rule and its exact scope are at the end of this file).  The examples themselves run as doctests in
``tests/test_docs_api.py::test_docstring_examples_run_as_doctests`` (slow); a cheap run of the same doctests for
these modules is here too, so a broken example fails the default run.
"""
from __future__ import annotations

import ast
import builtins
import doctest
import importlib
import inspect
import textwrap
import typing

import pytest
from numpydoc.docscrape import NumpyDocString

from spec.validation import signature_values_error  # an error factory (-> ValueError): the Raises rule's self-test

MODULES = [
    "fast.rados", "fast.losses", "fast.regularizers", "fast.radoboost", "fast.reconstruction", "fast.mechanisms",
    "fast.accounting", "fast.dp_rados", "fast.causal", "fast.causal_privacy", "fast.labels",
    "fast.estimators.rados", "fast.estimators.causal",
    "fast.measures", "fast.private_boosting", "fast.estimators.boosting",
    "fast.impact_coding", "fast.estimators.impact", "fast.budgeted", "fast.estimators.astc",
    "fast.snc", "fast.estimators.snc", "fast.preprocessing", "fast.model_selection",
    "spec.report", "spec.registry",  # the auditor's report and the registry: what `python -m spec` is built on
]

# Exceptions carry a message, not parameters worth documenting; everything else is held to the rule.
NO_PARAMETERS_NEEDED = (BaseException,)


def _public(module):
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n, o in vars(module).items() if not n.startswith("_")
                 and getattr(o, "__module__", None) == module.__name__]
    objs = [(n, getattr(module, n)) for n in names]
    return [(n, o) for n, o in objs if inspect.isfunction(o) or inspect.isclass(o)]


def _methods(cls):
    """The public methods a public class gets from this library (not from scikit-learn, numpy or builtins)."""
    if not inspect.isclass(cls):
        return []
    out = {}
    for klass in reversed(cls.__mro__):
        if not klass.__module__.startswith(("fast.", "spec.")):
            continue
        for name, member in vars(klass).items():
            if not name.startswith("_") and inspect.isfunction(member):
                out[name] = member
    return [(f"{cls.__name__}.{n}", m) for n, m in sorted(out.items())]


def _objects():
    out = []
    for mn in MODULES:
        module = importlib.import_module(mn)
        for name, obj in _public(module):
            out.append((f"{mn}.{name}", obj))
            out += [(f"{mn}.{q}", m) for q, m in _methods(obj)]
    return out


OBJECTS = _objects()


def _signature_params(obj) -> list[str]:
    target = obj.__init__ if inspect.isclass(obj) else obj
    if inspect.isclass(obj) and target is object.__init__:
        return []
    params = list(inspect.signature(target).parameters.values())
    if params and params[0].name in ("self", "cls"):
        params = params[1:]
    return [("*" if p.kind is p.VAR_POSITIONAL else "**" if p.kind is p.VAR_KEYWORD else "") + p.name
            for p in params]


def _returns_value(func) -> bool:
    """A return (or yield) with a value in the function's own body (nested functions excluded)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    fn = tree.body[0]

    def walk(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                continue
            if isinstance(child, (ast.Yield, ast.YieldFrom)):
                return True
            if isinstance(child, ast.Return) and child.value is not None and not (
                    isinstance(child.value, ast.Constant) and child.value.value is None):
                return True
            if walk(child):
                return True
        return False

    return walk(fn)


def _documented_names(doc) -> set[str]:
    names = set()
    for p in doc["Parameters"] + doc["Other Parameters"]:
        for n in p.name.split(","):
            names.add(n.strip())
    return names


def test_the_modules_have_public_objects():
    assert len(OBJECTS) > 160, len(OBJECTS)


@pytest.mark.parametrize("qualname, obj", OBJECTS, ids=[q for q, _ in OBJECTS])
def test_public_object_has_numpydoc_sections(qualname, obj):
    raw = inspect.getdoc(obj) or ""
    auto = inspect.isclass(obj) and raw.startswith(obj.__name__ + "(")  # a dataclass's generated docstring
    assert raw and not auto, f"{qualname} has no docstring"
    doc = NumpyDocString(raw)
    missing = []
    params = _signature_params(obj)
    if params and not (inspect.isclass(obj) and issubclass(obj, NO_PARAMETERS_NEEDED)):
        if not doc["Parameters"]:
            missing.append("Parameters")
        else:
            documented = _documented_names(doc)
            plain = {p.lstrip("*") for p in params}
            undocumented = [p for p in params if p not in documented and p.lstrip("*") not in documented]
            unknown = sorted(n for n in documented if n.lstrip("*") not in plain)
            assert not undocumented, f"{qualname}: parameters not documented: {undocumented}"
            assert not unknown, f"{qualname}: documented parameters not in the signature: {unknown}"
    if inspect.isfunction(obj) and _returns_value(obj) and not (doc["Returns"] or doc["Yields"]):
        missing.append("Returns")
    if not "".join(doc["Examples"]).strip():
        missing.append("Examples")
    assert not missing, f"{qualname} lacks numpydoc section(s): {missing}"


def test_the_checker_can_fail():
    """The rule above rejects a function without sections, and one documenting a parameter it does not take."""
    def bare(x):
        """Only a summary."""
        return x

    doc = NumpyDocString(inspect.getdoc(bare))
    assert not doc["Parameters"] and not doc["Returns"] and not doc["Examples"]
    assert _returns_value(bare)

    def side_effect(x):
        """Summary."""
        x.append(1)

    assert not _returns_value(side_effect)
    assert _signature_params(bare) == ["x"]


@pytest.mark.parametrize("module", MODULES)
def test_docstring_examples_of_the_module_pass(module):
    """The Examples of these modules as doctests (the slow test_docs_api run covers every module)."""
    mod = importlib.import_module(module)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(mod, module):
        runner.run(test, out=lambda s: None)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0
    assert result.failed == 0, f"{result.failed} of {result.attempted} doctest examples failed in {module}"


def _reference_twins():
    out = []
    for mn in MODULES:
        if not mn.startswith("fast.") or mn.startswith(("fast.estimators", "fast.preprocessing")):
            continue  # estimators and their preprocessing are fast-only; spec modules have no reference twin
        ref = importlib.import_module("reference." + mn.split(".", 1)[1])
        for name, obj in _public(importlib.import_module(mn)):
            twin = getattr(ref, name, None)
            if inspect.isfunction(twin) and twin.__module__ == ref.__name__:
                out.append((f"{ref.__name__}.{name}", twin))
    return out


REFERENCE_TWINS = _reference_twins()


@pytest.mark.parametrize("qualname, func", REFERENCE_TWINS, ids=[q for q, _ in REFERENCE_TWINS])
def test_reference_twin_has_parameters_and_returns(qualname, func):
    """The reference twins share the semantics: formula + citation first, then Parameters and Returns."""
    doc = NumpyDocString(inspect.getdoc(func) or "")
    assert doc["Summary"], f"{qualname} has no summary line"
    if _signature_params(func):
        assert doc["Parameters"], f"{qualname} lacks Parameters"
        documented = _documented_names(doc)
        plain = {p.lstrip("*") for p in _signature_params(func)}
        unknown = sorted(n for n in documented if n.lstrip("*") not in plain)
        assert not unknown, f"{qualname}: documented parameters not in the signature: {unknown}"
    if _returns_value(func):
        assert doc["Returns"] or doc["Yields"], f"{qualname} lacks Returns"


# ---------------------------------------------------------------------------------------------------------------
# Raises.  Every public function or method of fast/ and reference/ whose own body raises names, in a numpydoc
# Raises section, each exception class it raises itself:
#
# * subjects: the functions and methods of OBJECTS (and the constructors of its classes) from the ``fast.*`` modules
#   of MODULES, and REFERENCE_TWINS; only code defined in fast/ or reference/ (the unwrapped function's
#   ``__module__``).  That includes fast/_contracts/ (issue 28: the contract spec re-exports lives there), so the
#   ledgers fast.accounting re-exports from it are subjects too.
#   fast.cli is not in MODULES (its console commands document themselves through --help).
# * a class is held to it through its ``__init__`` (the one it uses, when that is a library function): numpydoc
#   documents the constructor in the class docstring, so that is where its Raises section goes;
# * a raise counts when it is a ``raise`` statement of the function's own body (the ``def`` node, nested
#   ``def`` / ``lambda`` / ``class`` bodies excluded).  A re-raise is not this function's own exception and does
#   not count: a bare ``raise``, or ``raise NAME`` where NAME is bound by an enclosing ``except ... as NAME``;
#   ``raise X(...) from err`` in a handler does count (X is new);
# * the class raised by ``raise E(...)`` / ``raise E`` / ``raise mod.E(...)`` is E resolved in the function's
#   globals (builtins included); an error factory (``raise signature_values_error("sigmas")``) counts as the class
#   its return annotation names (``-> ValueError``).  Anything else cannot be named and fails the rule;
# * a Raises entry names the classes of its type line, split on commas ("ValueError, TypeError" names both);
#   each is compared by its last dotted component ("numpy.linalg.LinAlgError" names LinAlgError).  Every class
#   raised must be named; naming more (a callee's exceptions) is allowed.
# ---------------------------------------------------------------------------------------------------------------

RAISES_PACKAGES = ("fast.", "reference.")
RAISES_EXCLUDED = ("fast.cli",)  # not in MODULES; excluded here too should a covered module re-export from it


def _resolve_exception(expr: ast.expr, func) -> str | None:
    """The name of the exception class that ``raise expr`` raises, or None when it cannot be named."""
    target = expr.func if isinstance(expr, ast.Call) else expr
    parts = []
    while isinstance(target, ast.Attribute):
        parts.append(target.attr)
        target = target.value
    if not isinstance(target, ast.Name):
        return None
    parts.append(target.id)
    scope = {**vars(builtins), **inspect.unwrap(func).__globals__}
    if parts[-1] not in scope:
        return None
    obj = scope[parts.pop()]
    for attr in reversed(parts):
        obj = getattr(obj, attr, None)
    if inspect.isclass(obj) and issubclass(obj, BaseException):
        return obj.__name__
    if isinstance(expr, ast.Call) and inspect.isfunction(obj):  # an error factory: the class it is annotated to return
        ret = typing.get_type_hints(obj).get("return")
        if inspect.isclass(ret) and issubclass(ret, BaseException):
            return ret.__name__
    return None


def _raised_classes(func) -> set[str]:
    """The exception classes raised by the ``raise`` statements of the function's own body (re-raises excluded).

    A raise whose class cannot be named gives ``"<unnamed: SOURCE>"`` (which no Raises section names)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    out = set()

    def walk(node, caught: frozenset):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                continue
            inner = caught
            if isinstance(child, ast.ExceptHandler) and child.name:
                inner = caught | {child.name}
            if isinstance(child, ast.Raise) and child.exc is not None:
                if not (isinstance(child.exc, ast.Name) and child.exc.id in caught):
                    name = _resolve_exception(child.exc, func)
                    out.add(name or f"<unnamed: {ast.unparse(child)}>")
            walk(child, inner)

    walk(tree.body[0], frozenset())
    return out


def _documented_raises(doc) -> set[str]:
    names = set()
    for entry in doc["Raises"]:
        for n in (entry.type or entry.name).split(","):
            n = n.strip().strip("`").lstrip("~")
            if n:
                names.add(n.rsplit(".", 1)[-1])
    return names


def _raises_subjects():
    out = []
    for qualname, obj in [(q, o) for q, o in OBJECTS if q.startswith("fast.")] + REFERENCE_TWINS:
        code = obj.__init__ if inspect.isclass(obj) else obj
        if not inspect.isfunction(code):
            continue  # a class with object's (or a C) constructor
        try:
            inspect.getsource(code)
        except (OSError, TypeError):
            continue  # a generated constructor (dataclass): no raise statement of ours
        module = inspect.unwrap(code).__module__
        if module.startswith(RAISES_PACKAGES) and module not in RAISES_EXCLUDED:
            out.append((qualname, obj, code))
    return out


RAISES_SUBJECTS = _raises_subjects()


def test_the_raises_rule_has_subjects():
    assert len(RAISES_SUBJECTS) > 300, len(RAISES_SUBJECTS)
    assert sum(bool(_raised_classes(code)) for _, _, code in RAISES_SUBJECTS) > 80


@pytest.mark.parametrize("qualname, obj, code", RAISES_SUBJECTS, ids=[q for q, _, _ in RAISES_SUBJECTS])
def test_direct_raises_are_documented(qualname, obj, code):
    raised = _raised_classes(code)
    if not raised:
        return
    documented = _documented_raises(NumpyDocString(inspect.getdoc(obj) or ""))
    missing = sorted(raised - documented)
    assert not missing, f"{qualname} raises {missing} but its Raises section does not name them"


def test_the_raises_checker_can_fail():
    """Direct raises are found (factories resolved); re-raises and nested functions' raises are not."""
    def f(x):
        """Summary.

        Raises
        ------
        ValueError, TypeError
            Bad ``x``.
        """
        def inner():
            raise KeyError(x)

        try:
            inner()
        except KeyError as err:
            if x:
                raise
            raise LookupError(x) from err
        except IndexError as err:
            raise err
        if x is None:
            raise signature_values_error("x")
        raise builtins.TypeError(x)

    assert _raised_classes(f) == {"LookupError", "ValueError", "TypeError"}
    assert _documented_raises(NumpyDocString(inspect.getdoc(f))) == {"ValueError", "TypeError"}
    assert _raised_classes(f) - _documented_raises(NumpyDocString(inspect.getdoc(f))) == {"LookupError"}  # flagged

    def g():
        """Summary."""
        raise make_error()

    assert _raised_classes(g) == {"<unnamed: raise make_error()>"}
