#!/usr/bin/python3
"""Validates JSON files against a JSON Schema (Debian's python3-jsonschema).

usage: validate-json.py SCHEMA FILE...
Prints one line per violation (file, JSON path, message) and exits 1 if there
is any, 2 if a file cannot be read, 0 if every file conforms.
"""
import json
import sys

try:
    import jsonschema
except ImportError:
    sys.exit("validate-json: python3-jsonschema is not installed (apt-get install python3-jsonschema)")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    try:
        with open(sys.argv[1]) as f:
            schema = json.load(f)
        validator_class = jsonschema.validators.validator_for(schema)
        validator_class.check_schema(schema)
        validator = validator_class(schema)
    except (OSError, ValueError, jsonschema.SchemaError) as e:
        print(f"validate-json: {sys.argv[1]}: {e}", file=sys.stderr)
        return 2
    bad = 0
    for path in sys.argv[2:]:
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            print(f"validate-json: {path}: {e}", file=sys.stderr)
            return 2
        for error in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path)):
            where = "/".join(str(p) for p in error.absolute_path) or "(top)"
            print(f"{path}: {where}: {error.message}")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
