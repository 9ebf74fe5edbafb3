#!/usr/bin/env python3
"""Generates mpidle's MPI wrappers from the function table and the installed mpi.h.

Inputs:  profiler/wrappers/mpi_functions.def, and mpi.h run through the C preprocessor.
Outputs (build tree only): mpi_fn.hpp (the MpiFn enum and names), wrappers.cpp
(MPI_ and PMPI_ entry points that glue each call to its hook in hooks.hpp),
null_wrappers.cpp (the floor any PMPI tool pays: every wrapped MPI_ function
forwarding to its PMPI_ name and nothing else, for make bench), and
wrapped-functions.md. The generated code holds no logic; see hooks.hpp for that.
"""
import argparse
import re
import sys

# Hook parameter order per kind; roles left out of a table line get the default.
KIND_ROLES = {
    "send": ["bytes", "peer", "tag", "comm"],
    "ssend": ["bytes", "peer", "tag", "comm"],
    "recv": ["bytes", "peer", "tag", "comm", "status"],
    "sendrecv": ["bytes", "recvbytes", "peer", "tag", "source", "recvtag", "comm", "status"],
    "isend": ["bytes", "peer", "tag", "comm", "request"],
    "issend": ["bytes", "peer", "tag", "comm", "request"],
    "irecv": ["bytes", "peer", "tag", "comm", "request"],
    "isendrecv": ["bytes", "recvbytes", "peer", "tag", "source", "recvtag", "comm", "request"],
    "send_init": ["bytes", "peer", "tag", "comm", "request"],
    "ssend_init": ["bytes", "peer", "tag", "comm", "request"],
    "recv_init": ["bytes", "peer", "tag", "comm", "request"],
    "start": ["request"],
    "startall": ["count", "requests"],
    "request_free": ["request"],
    "cancel": ["request"],
    "request_other": ["request"],
    "request_other_init": ["request"],
    "probe": ["peer", "tag", "comm", "status"],
    "iprobe": ["peer", "tag", "comm", "flag", "status"],
    "mprobe": ["peer", "tag", "comm", "message", "status"],
    "improbe": ["peer", "tag", "comm", "flag", "message", "status"],
    "mrecv": ["bytes", "message", "status"],
    "imrecv": ["bytes", "message", "request"],
    "wait": ["request", "status"],
    "test": ["request", "flag", "status"],
    "waitany": ["count", "requests", "index", "status"],
    "testany": ["count", "requests", "index", "flag", "status"],
    "waitall": ["count", "requests", "statuses"],
    "testall": ["count", "requests", "flag", "statuses"],
    "waitsome": ["count", "requests", "outcount", "indices", "statuses"],
    "testsome": ["count", "requests", "outcount", "indices", "statuses"],
    "coll": ["bytes", "root", "comm", "coll"],
    "icoll": ["bytes", "root", "comm", "coll", "request"],
    "coll_init": ["bytes", "root", "comm", "coll", "request"],
    "comm_create": ["newcomm"],
    "comm_icreate": ["newcomm", "request"],
    "comm_free": ["newcomm"],
    "rma": ["bytes", "peer", "win"],
    "rma_request": ["bytes", "peer", "win", "request"],
    "win_free": ["win"],
    "io": ["bytes"],
    "io_request": ["bytes", "request"],
    "type_change": [],
    "time_only": [],
    "sync_only": [],
}
SPECIAL_KINDS = {"init", "finalize", "session_init", "session_finalize", "abort", "pcontrol"}
# Non-blocking polls: timed by sample in profile mode (MPIDLE_POLL_SAMPLE); the
# others take an untimed path of their own.
POLL_KINDS = {"test", "testany", "testall", "testsome", "iprobe", "improbe"}
ROLE_DEFAULTS = {"bytes": "std::uint64_t{0}", "recvbytes": "std::uint64_t{0}",
                 "root": "mpidle::profiler::kNoRoot",
                 "coll": "mpidle::model::CollectiveKind::none"}
ROLE_NAMES = {"bytes", "recvbytes", "inplace", "peer", "root", "comm", "status", "statuses",
              "request", "flag", "count", "requests", "index", "indices", "outcount", "message",
              "newcomm", "tag", "source", "recvtag", "coll", "win"}
# How a collective's ranks depend on each other (a constant, not an argument).
COLLECTIVE_KINDS = {"none", "one_to_n", "n_to_one", "n_to_n", "scan", "exscan"}
# The types (const dropped, arrays as pointers) a role's parameter may have; a table
# whose parameter list is out of order fails here rather than at run time.
INT = {"int"}
ROLE_TYPES = {
    "peer": INT, "tag": INT, "root": INT, "source": INT, "recvtag": INT, "count": INT,
    "comm": {"MPI_Comm"}, "newcomm": {"MPI_Comm*"}, "win": {"MPI_Win", "MPI_Win*"},
    "status": {"MPI_Status*"}, "statuses": {"MPI_Status*"},
    "request": {"MPI_Request*"}, "requests": {"MPI_Request*"}, "message": {"MPI_Message*"},
    "flag": {"int*"}, "index": {"int*"}, "indices": {"int*"}, "outcount": {"int*"},
}
COUNT_TYPES = {"int", "MPI_Count", "MPI_Aint"}
COUNTS_TYPES = {"int*", "MPI_Count*", "MPI_Aint*"}
DATATYPE_TYPES = {"MPI_Datatype"}
DATATYPES_TYPES = {"MPI_Datatype*"}
BUFFER_TYPES = {"void*"}


class TableError(Exception):
    pass


# C words that can end a parameter's type: a declaration ending in one names no parameter.
TYPE_WORDS = {"const", "volatile", "void", "char", "short", "int", "long", "float", "double",
              "signed", "unsigned"}


def split_declaration(decl):
    """Splits a parameter declaration into (type with '@' where the name goes, name or None).

    Headers may leave parameters unnamed ('MPI_Comm', 'const int []'); names are
    never relied upon, only the type."""
    m = re.fullmatch(r"(.*?[\s*])(\w+)\s*((?:\[[^\]]*\]\s*)*)", decl)
    if m and m.group(2) not in TYPE_WORDS and not m.group(2).startswith("MPI_"):
        return f"{join_name(m.group(1))}{m.group(3).strip()}", m.group(2)
    m = re.fullmatch(r"(.*?)\s*((?:\[[^\]]*\]\s*)*)", decl)
    return f"{join_name(m.group(1))}{m.group(2).strip()}", None


def join_name(type_text):
    """'int *' -> 'int *@', 'MPI_Comm' -> 'MPI_Comm @'."""
    type_text = type_text.rstrip()
    return type_text + ("@" if type_text.endswith("*") else " @")


def normal_type(template):
    """'const MPI_Request @[]' -> 'MPI_Request*': the type as roles check it."""
    t = template.replace("@", "")
    t = re.sub(r"\bconst\b", "", t)
    t = re.sub(r"\[[^\]]*\]", "*", t)
    return "".join(t.split())


def parse_prototypes(text):
    """Maps MPI_ function name -> (return type, [type template], varargs)."""
    flat = " ".join(text.split())
    protos = {}
    for m in re.finditer(r"\b(int|double) (MPI_\w+)\s*\(([^()]*)\)\s*;", flat):
        ret, name, params = m.group(1), m.group(2), m.group(3).strip()
        templates, varargs = [], False
        if params and params != "void":
            for p in params.split(","):
                p = p.strip()
                if p == "...":
                    varargs = True
                    continue
                templates.append(split_declaration(p)[0])
        protos[name] = (ret, templates, varargs)
    return protos


def parse_table(path):
    """Rows of (line number, name, parameter names or None, kind, roles)."""
    rows = []
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            fields = line.split()
            m = re.fullmatch(r"(MPI_\w+)(?:\(([\w,]*)\))?", fields[0])
            if not m or len(fields) < 2:
                raise TableError(f"{path}:{lineno}: expected NAME[(PARAMETERS)] KIND [ROLES]")
            name, kind, roles = m.group(1), fields[1], {}
            params = m.group(2).split(",") if m.group(2) else None
            if params is not None and len(set(params)) != len(params):
                raise TableError(f"{path}:{lineno}: a parameter name appears twice")
            if kind not in KIND_ROLES and kind not in SPECIAL_KINDS:
                raise TableError(f"{path}:{lineno}: unknown kind '{kind}'")
            for role in fields[2:]:
                key, _, value = role.partition("=")
                if key not in ROLE_NAMES or not value:
                    raise TableError(f"{path}:{lineno}: bad role '{role}'")
                roles[key] = value
            if roles and params is None:
                raise TableError(f"{path}:{lineno}: roles need the parameter list NAME(...)")
            rows.append((lineno, name, params, kind, roles))
    return rows


def check_type(name, allowed, types, where):
    """A role's parameter must have one of the types the role reads."""
    if types[name] not in allowed:
        raise TableError(f"{where}: parameter '{name}' is {types[name]} in this mpi.h; "
                         f"expected {' or '.join(sorted(allowed))} (is the parameter list in order?)")


def bytes_expr(expr, types, where):
    """Translates a bytes expression of the table into C++."""
    terms = []
    for term in expr.split("+"):
        if term == "0":
            terms.append("std::uint64_t{0}")
            continue
        m = re.fullmatch(r"(?:(sum|sumw|nsum|nsumw):)?(\w+)\*(\w+)", term)
        if not m:
            raise TableError(f"{where}: bad bytes term '{term}'")
        op, count, dtype = m.groups()
        # A literal count (1*datatype) names one element.
        if not (op is None and count.isdigit()):
            if count not in types:
                raise TableError(f"{where}: '{count}' is not a parameter")
            check_type(count, COUNT_TYPES if op is None else COUNTS_TYPES, types, where)
        if dtype not in types:
            raise TableError(f"{where}: '{dtype}' is not a parameter")
        check_type(dtype, DATATYPES_TYPES if op in ("sumw", "nsumw") else DATATYPE_TYPES, types,
                   where)
        if op is None:
            terms.append(f"mpidle::profiler::bytes_of({count}, {dtype})")
        else:
            if "comm" not in types:
                raise TableError(f"{where}: {op} needs a 'comm' parameter")
            check_type("comm", ROLE_TYPES["comm"], types, where)
            fn = {"sum": "bytes_of_sum", "sumw": "bytes_of_sumw",
                  "nsum": "bytes_of_neighbor_sum", "nsumw": "bytes_of_neighbor_sumw"}[op]
            terms.append(f"mpidle::profiler::{fn}({count}, {dtype}, comm)")
    return " + ".join(terms)


def role_value(role, roles, types, where):
    if role in ("bytes", "recvbytes"):
        if role not in roles:
            return ROLE_DEFAULTS[role]
        main = bytes_expr(roles[role], types, where)
        if role == "bytes" and "inplace" in roles:
            buf, _, alt = roles["inplace"].partition(":")
            if buf not in types:
                raise TableError(f"{where}: '{buf}' is not a parameter")
            check_type(buf, BUFFER_TYPES, types, where)
            return f"({buf} == MPI_IN_PLACE ? {bytes_expr(alt, types, where)} : {main})"
        return main
    if role not in roles:
        if role in ROLE_DEFAULTS:
            return ROLE_DEFAULTS[role]
        raise TableError(f"{where}: kind needs role '{role}'")
    if role == "coll":
        if roles[role] not in COLLECTIVE_KINDS:
            raise TableError(f"{where}: coll={roles[role]} is not one of {sorted(COLLECTIVE_KINDS)}")
        return f"mpidle::model::CollectiveKind::{roles[role]}"
    if roles[role] not in types:
        raise TableError(f"{where}: '{roles[role]}' is not a parameter")
    check_type(roles[role], ROLE_TYPES[role], types, where)
    return roles[role]


def camel(kind):
    return "".join(part.capitalize() for part in kind.split("_"))


def emit_wrapper(out, name, params, kind, roles, proto, where):
    ret, templates, varargs = proto
    if ret != "int":
        raise TableError(f"{where}: only int-returning functions can be wrapped")
    if params is None:
        params_names = [f"arg{i + 1}" for i in range(len(templates))]
    elif len(params) != len(templates):
        raise TableError(f"{where}: the table lists {len(params)} parameters, "
                         f"this mpi.h declares {len(templates)}")
    else:
        params_names = params
    args = params_names
    types = {n: normal_type(t) for n, t in zip(args, templates)}
    decl_list = [t.replace("@", n) for n, t in zip(args, templates)]
    params = ", ".join(decl_list) + (", ..." if varargs else "")
    forward = ", ".join(args)
    names = kind == "pcontrol" and varargs  # MPI_Pcontrol(level, ...): the rest to the hook
    inner_params = ", ".join(["void* mpidle_callsite"] + decl_list +
                             (["std::va_list mpidle_names"] if names else []))
    fn_type = f"int (*)({', '.join(decl_list)})"
    out.append(f"// {name}: {kind}")
    out.append(f"static mpidle::profiler::RealFunction<{fn_type}> real_{name}{{\"P{name}\"}};")
    # A poll's recorded path is a function of its own: the untimed path (below)
    # reaches it by a tail call, so that the untimed one saves no registers for it.
    inline = "[[gnu::noinline]] static" if kind in POLL_KINDS else \
        "[[gnu::always_inline]] static inline"
    out.append(f"{inline} int wrap_{name}({inner_params}) {{")
    out.append(f"  const auto real = real_{name}.get();")
    out.append(f"  if (real == nullptr) return mpidle::profiler::missing_function(\"P{name}\");")
    out.append(f"  mpidle::profiler::CallScope scope(mpidle::profiler::MpiFn::{name});")
    if kind in SPECIAL_KINDS and kind != "pcontrol":
        out.append("  (void)mpidle_callsite;")
    if kind in ("init", "session_init"):
        out.append(f"  if (!scope.outermost()) return real({forward});")
        out.append(f"  const int rc = real({forward});")
        out.append(f"  mpidle::profiler::hooks::on_{kind}(rc);")
        out.append("  return rc;")
    elif kind in ("finalize", "session_finalize"):
        out.append(f"  if (scope.outermost()) mpidle::profiler::hooks::on_{kind}();")
        out.append(f"  return real({forward});")
    elif kind == "abort":
        out.append("  if (scope.outermost()) mpidle::profiler::hooks::on_abort();")
        out.append(f"  return real({forward});")
    elif kind == "pcontrol":
        # The level, then (MPIDLE_PCONTROL=regions) a region name the hook may read.
        out.append(f"  if (scope.outermost()) mpidle::profiler::hooks::on_pcontrol("
                   f"mpidle_callsite, {args[0]}, mpidle_names);")
        out.append(f"  return real({forward});")
    else:
        hook_args = ", ".join(["call"] + [role_value(r, roles, types, where)
                                          for r in KIND_ROLES[kind]])
        out.append(f"  if (!scope.records()) return real({forward});")
        out.append(f"  mpidle::profiler::Call call(mpidle::profiler::MpiFn::{name}, mpidle_callsite);")
        out.append(f"  mpidle::profiler::hooks::{camel(kind)} hook;")
        out.append(f"  hook.before({hook_args});")
        out.append("  call.start();")
        out.append(f"  const int rc = real({forward});")
        out.append("  call.stop();")
        out.append("  hook.after(call, rc);")
        out.append("  return rc;")
    out.append("}")
    call_args = ", ".join(["__builtin_return_address(0)"] + args +
                          (["mpidle_names"] if names else []))
    lean = []
    if kind in POLL_KINDS:
        # Most polls: no Call, no clock read, no trace, no request keys; only a
        # completion (out of line) runs the poll's own hook (hooks::K::Untimed).
        # The callsite is read again after the call, from the stack, rather than
        # kept in a register that would have to be saved.
        lean_args = ", ".join(role_value(r, roles, types, where) for r in KIND_ROLES[kind])
        lean = [
            "  if (mpidle::profiler::untimed_poll()) {",
            f"    const auto real = real_{name}.get();",
            f"    mpidle::profiler::hooks::{camel(kind)}::Untimed poll;",
            f"    if (real != nullptr && poll.before({lean_args})) {{",
            f"      const int rc = mpidle::profiler::call_unrecorded(mpidle::profiler::MpiFn::{name}, real, {forward});",
            "      if (__builtin_expect(poll.nothing_completed(rc), 1)) {",
            f"        mpidle::profiler::record_untimed_poll(mpidle::profiler::MpiFn::{name}, "
            "__builtin_return_address(0), poll.peer());",
            "        return rc;",
            "      }",
            f"      return poll.completed(mpidle::profiler::MpiFn::{name}, "
            "__builtin_return_address(0), rc);",
            "    }",
            "  }",
        ]
    for prefix in ("", "P"):
        out.append(f"extern \"C\" MPIDLE_EXPORT int {prefix}{name}({params}) {{")
        if names:
            out.append("  std::va_list mpidle_names;")
            out.append(f"  va_start(mpidle_names, {args[-1]});")
            out.append(f"  const int rc = wrap_{name}({call_args});")
            out.append("  va_end(mpidle_names);")
            out.append("  return rc;")
        else:
            out.extend(lean)
            out.append(f"  return wrap_{name}({call_args});")
        out.append("}")
    out.append("")


def emit_null_wrapper(out, name, params, proto):
    """MPI_name calling PMPI_name, as a PMPI tool that records nothing would."""
    _, templates, varargs = proto
    args = params if params is not None and len(params) == len(templates) else \
        [f"arg{i + 1}" for i in range(len(templates))]
    decl = ", ".join(t.replace("@", n) for n, t in zip(args, templates)) + \
        (", ..." if varargs else "")
    out.append(f"extern \"C\" MPIDLE_NULL_EXPORT int {name}({decl}) {{")
    out.append(f"  return P{name}({', '.join(args)});")
    out.append("}")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--table", required=True)
    ap.add_argument("--mpi-header", required=True, help="preprocessed mpi.h")
    ap.add_argument("--out-dir", required=True)
    opts = ap.parse_args()

    try:
        with open(opts.mpi_header) as f:
            protos = parse_prototypes(f.read())
        rows = parse_table(opts.table)
        functions, skipped = [], []
        for lineno, name, params, kind, roles in rows:
            for variant in (name, name + "_c"):
                if variant in protos:
                    functions.append((lineno, variant, params, kind, roles))
                elif variant == name:
                    skipped.append(name)
        seen = set()
        for _, name, _, _, _ in functions:
            if name in seen:
                raise TableError(f"{name} appears twice in the table")
            seen.add(name)

        wrappers = ["// Generated by profiler/wrappers/gen/gen_wrappers.py from mpi_functions.def. Do not edit.",
                    '#include "profiler/wrappers/wrapper_support.hpp"', ""]
        null = ["// Generated by profiler/wrappers/gen/gen_wrappers.py from mpi_functions.def. Do not edit.",
                "#include <mpi.h>",
                '#define MPIDLE_NULL_EXPORT __attribute__((visibility("default")))', ""]
        for lineno, name, params, kind, roles in functions:
            emit_wrapper(wrappers, name, params, kind, roles, protos[name],
                         f"{opts.table}:{lineno} ({name})")
            emit_null_wrapper(null, name, params, protos[name])
    except TableError as e:
        print(f"gen_wrappers: {e}", file=sys.stderr)
        return 1

    enum = ["// Generated by profiler/wrappers/gen/gen_wrappers.py from mpi_functions.def. Do not edit.",
            "#pragma once", "#include <cstddef>", "#include <cstdint>", "",
            "namespace mpidle::profiler {", "",
            "enum class MpiFn : std::uint16_t {"]
    enum += [f"  {name}," for _, name, _, _, _ in functions]
    enum += ["};", "",
             f"inline constexpr std::size_t kMpiFnCount = {len(functions)};", "",
             "inline constexpr const char* kMpiFnNames[kMpiFnCount] = {"]
    enum += [f'    "{name}",' for _, name, _, _, _ in functions]
    enum += ["};", "", "}  // namespace mpidle::profiler", ""]

    doc = ["# Functions wrapped by mpidle", "",
           "Generated from `profiler/wrappers/mpi_functions.def` and the installed `mpi.h`;",
           "every function is intercepted under both its `MPI_` and its `PMPI_` name.", "",
           "| function | kind | roles |", "|---|---|---|"]
    for _, name, _, kind, roles in functions:
        role_text = " ".join(f"`{k}={v}`" for k, v in roles.items())
        doc.append(f"| `{name}` | {kind} | {role_text} |")
    if skipped:
        doc += ["", "Listed in the table but not declared by this mpi.h: " +
                ", ".join(f"`{s}`" for s in skipped) + "."]
    doc.append("")

    for fname, lines in (("mpi_fn.hpp", enum), ("wrappers.cpp", wrappers),
                         ("null_wrappers.cpp", null), ("wrapped-functions.md", doc)):
        with open(f"{opts.out_dir}/{fname}", "w") as f:
            f.write("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
