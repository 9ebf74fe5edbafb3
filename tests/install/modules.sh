#!/bin/sh
# The module files turn mpidle on: Lmod loads the Lua one and the Tcl one (as
# environment-modules would), and each puts libmpidle in LD_PRELOAD and mpidle on
# PATH. Exit 77 (skipped) without Lmod.
#   modules.sh BUILD_DIR
set -eu
build=$1
lmod=/usr/share/lmod/lmod/libexec/lmod
[ -x "$lmod" ] || { echo "Lmod is not installed (apt-get install lmod): skipped"; exit 77; }
for flavour in lmod tcl; do
  out=$(MODULEPATH="$build/site/$flavour" LD_PRELOAD= "$lmod" sh load mpidle 2>&1)
  echo "$out" | grep -q 'LD_PRELOAD=.*libmpidle[-a-z]*\.so' ||
    { echo "$flavour: load does not preload libmpidle: $out"; exit 1; }
  echo "$out" | grep -q 'PATH=[^;]*bin' || { echo "$flavour: load does not set PATH: $out"; exit 1; }
  echo "$flavour: ok"
done
