"""The HumanEval-style test compiled so that it goes on after a failure (:func:`recorded_asserts`).

Standard library only and importing nothing of ``verl_ext``: the harness loads this file by path inside the
sandbox (``python -I -S -B``, no ``site``, no package), as it loads ``protocol.py``. The harness binds
:data:`FAILED` and the :data:`BUILTIN` names in the test's scope.
"""

import ast

#: The test's `assert` statements report a failure to this name (``recorded_asserts``).
FAILED = "__verl_ext_assert_failed__"
#: The test's names of the builtins `all` and `any` (``recorded_asserts`` splits those calls only).
BUILTIN = "__verl_ext_builtin_{}__"


def may_catch(tree):
    """Whether the test may catch an exception itself: a `try` with handlers or a `with` (a context manager may
    suppress) anywhere in it."""
    tries = tuple(getattr(ast, name) for name in ("Try", "TryStar") if hasattr(ast, name))  # TryStar: 3.11+
    return any((isinstance(node, tries) and node.handlers) or isinstance(node, (ast.With, ast.AsyncWith))
               for node in ast.walk(tree))


def recorded_asserts(source: str):
    """The test code compiled so that it goes on after a failure, with a plain run's verdict (a pass needs every
    check to hold and nothing to raise; the first failure decides, as where a plain run stopped). Stopping at
    the first failure meant the program's next call came only if its last answer was right: a verdict it could
    pass to another sample. The rule that keeps verdicts: *extra work is done only once a failure is recorded*
    (the verdict is then fail, whatever that work does), never after a success.

    * `assert c, m` becomes `if not c: <record a failure>`, its message not evaluated (it may call the program);
      within `c`, `a and b`, chained comparisons, `all(items)` and `not any(items)` are checked part by part,
      so the later parts come after a false one (the items' loop in a function of its own, so its variables
      stay in their own scope, as a comprehension's).
    * Each statement of `check` (and of the `if`/`for` blocks in it) that raises records the failure and the
      next statement runs: explicit raises (the exception not built: it may call the program), unittest's
      assertions, helpers that raise. In a `while`, a recorded failure also leaves the loop (its condition may
      never turn false after it). A `try` or `with` statement is one unit.
    * A test that may catch an exception itself (a `try` with handlers or a `with` anywhere: the exception it
      expects may come from any function it reaches, however it names it) keeps its helpers and module-level
      code as written, and its asserts inside `try`/`with` bodies or outside `check` raise as written. Other
      tests get the rewrite in their helpers and module-level statements too (but `__future__` imports and
      the docstring, which must stay first).
    (A `break`, `return`, `and`/`or`, conditional expression or `any`/`all` outside an assert that decides on a
    wrong answer still ends early: that control flow is the test's, and making it go on could change what a
    right program sees.)"""
    def record(assertion=None):
        args = [] if assertion is None else [assertion]
        return ast.Expr(ast.Call(ast.Name(FAILED, ast.Load()), args, []))

    def checks(test):
        """Statements recording a failure for each part of ``test`` that is false, evaluating every part."""
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
            return [stmt for value in test.values for stmt in checks(value)]
        negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
        call = test.operand if negated else test
        if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and len(call.args) == 1
                and not call.keywords and call.func.id == ("any" if negated else "all")
                and not any(isinstance(n, ast.NamedExpr) for n in ast.walk(call.args[0]))):  # walrus: scope
            # all(items) and not any(items): every item checked, on its own (after a false one too).
            items = call.args[0]
            if (isinstance(items, (ast.GeneratorExp, ast.ListComp))
                    and not any(g.is_async for g in items.generators)):
                element = ast.UnaryOp(ast.Not(), items.elt) if negated else items.elt
                body = checks(element)
                for gen in reversed(items.generators):
                    for cond in reversed(gen.ifs):
                        body = [ast.If(cond, body, [])]
                    body = [ast.For(gen.target, gen.iter, body, [])]
            else:
                item = f"__verl_ext_item_{id(test)}__"
                element = ast.Name(item, ast.Load())
                body = [ast.For(ast.Name(item, ast.Store()), items,
                                checks(ast.UnaryOp(ast.Not(), element) if negated else element), [])]
            # In a function of its own: the loop's variables stay in their own scope, as a comprehension's.
            name = f"__verl_ext_all_{id(test)}__"
            function = ast.FunctionDef(name, ast.arguments([], [], None, [], [], None, []), body, [], None)
            split = [function, ast.Expr(ast.Call(ast.Name(name, ast.Load()), [], []))]
            # Only where the name is the builtin when it runs (not the program's function, not a parameter).
            real = ast.Compare(ast.Name(call.func.id, ast.Load()), [ast.Is()],
                               [ast.Name(BUILTIN.format(call.func.id), ast.Load())])
            return [ast.If(real, split, [ast.If(ast.UnaryOp(ast.Not(), test), [record()], [])])]
        if isinstance(test, ast.Compare) and len(test.ops) > 1:  # a == b == c: every operand, once, in order
            names = [f"__verl_ext_operand_{id(test)}_{i}__" for i in range(len(test.ops) + 1)]
            out = [ast.Assign([ast.Name(n, ast.Store())], value)
                   for n, value in zip(names, [test.left, *test.comparators], strict=True)]
            for i, op in enumerate(test.ops):
                out += checks(ast.Compare(ast.Name(names[i], ast.Load()), [op], [ast.Name(names[i + 1], ast.Load())]))
            return out
        return [ast.If(ast.UnaryOp(ast.Not(), test), [record()], [])]

    tree = ast.parse(source, "test.py")
    catches = may_catch(tree)
    checks_of = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "check"]

    class Recorded(ast.NodeTransformer):
        def visit_Assert(self, node):
            return [ast.copy_location(stmt, node) for stmt in checks(node.test)]

        def visit_FunctionDef(self, node):
            return node  # a function's own asserts are decided by its own pass

        visit_AsyncFunctionDef = visit_FunctionDef
        visit_ClassDef = visit_FunctionDef  # classes (their methods raise by protocol) stay as written

        def visit_Try(self, node):
            return node if catches and node.handlers else self.generic_visit(node)

        visit_TryStar = visit_Try

        def visit_With(self, node):
            return node if catches else self.generic_visit(node)

        visit_AsyncWith = visit_With

    def going_on(body, in_while=False, helper=False):
        """``body`` with each statement that may raise wrapped so that raising records a failure (and, in a
        `while`, leaves it). In a helper, only an AssertionError: its other exceptions may be its protocol
        (a `raise KeyError` its caller reads), and they reach `check`'s own statements, which record them."""
        out: list[ast.stmt] = []
        for stmt in body:
            if isinstance(stmt, (ast.If, ast.For)):
                inner = in_while and isinstance(stmt, ast.If)
                stmt.body, stmt.orelse = going_on(stmt.body, inner, helper), going_on(stmt.orelse, inner, helper)
            elif isinstance(stmt, ast.While):
                stmt.body = going_on(stmt.body, True, helper)
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Global, ast.Nonlocal,
                                 ast.Pass, ast.Break, ast.Continue, ast.Return, ast.Import, ast.ImportFrom)):
                out.append(stmt)
                continue
            leave = [ast.Break()] if in_while else []
            if isinstance(stmt, ast.Raise) and stmt.exc is not None:  # the exception is not built: it may call
                raised = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
                asserted = isinstance(raised, ast.Name) and raised.id == "AssertionError"
                if asserted or not helper:
                    out += [ast.copy_location(record(ast.Constant(asserted)), stmt), *leave]
                    continue
            caught = f"__verl_ext_caught_{id(stmt)}__"
            assertion = ast.Call(ast.Name("isinstance", ast.Load()),
                                 [ast.Name(caught, ast.Load()), ast.Name("AssertionError", ast.Load())], [])
            kind = "AssertionError" if helper else "Exception"
            handler = ast.ExceptHandler(ast.Name(kind, ast.Load()), caught, [record(assertion), *leave])
            out.append(ast.copy_location(ast.Try([stmt], [handler], [], []), stmt))
        return out

    def functions(node):
        """The functions in ``node``, nested ones too, but not those of a class (methods raise by protocol)."""
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield child
            if not isinstance(child, ast.ClassDef):
                yield from functions(child)

    for function in list(functions(tree)):
        if not catches or function in checks_of:  # a test that may catch keeps its helpers as written
            function.body = going_on(Recorded().visit(ast.Module(function.body, [])).body,
                                     helper=function not in checks_of)
    if not catches:  # imports stay as they are (`from __future__` must come first), so does the docstring
        first = 1 if tree.body and isinstance(tree.body[0], ast.Expr) and isinstance(tree.body[0].value, ast.Constant) \
            else 0
        tree.body[first:] = going_on(Recorded().visit(ast.Module(tree.body[first:], [])).body)
    return compile(ast.fix_missing_locations(tree), "test.py", "exec")
