#!/bin/sh
# check_install.sh BUILD_DIR SOURCE_DIR - installs the library into a fresh prefix and
# builds a consumer outside the tree both ways users do: pkg-config with a plain `cc`,
# and CMake's find_package(actq). Then moves the prefix and checks pkg-config again
# (the .pc file is relocatable). Run by ctest.
set -eu
build=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --install "$build" --prefix "$work/prefix" >/dev/null
# A static tree (BUILD_SHARED_LIBS=OFF) installs libactq.a: link it with pkg-config --static.
static=
if ls "$work"/prefix/lib*/libactq.so.* >/dev/null 2>&1; then
  lib=$(ls "$work"/prefix/lib*/libactq.so.* | head -n 1)
  readelf -d "$lib" | grep -q 'SONAME.*libactq\.so\.[0-9]' || { echo "no SONAME"; exit 1; }
else
  ls "$work"/prefix/lib*/libactq.a >/dev/null
  static=--static
fi
pcdir=$(dirname "$(ls "$work"/prefix/lib*/pkgconfig/actq.pc)")

# 1. pkg-config + cc, exactly as the README says
PKG_CONFIG_PATH=$pcdir
export PKG_CONFIG_PATH
cc -std=c99 -Wall -Werror -o "$work/example" "$src/examples/example.c" \
  $(pkg-config $static --cflags --libs actq) -lm
LD_LIBRARY_PATH=$(pkg-config --variable=libdir actq) "$work/example"

# 2. the prefix moved elsewhere: pkg-config still points into it
mv "$work/prefix" "$work/moved"
PKG_CONFIG_PATH=$(echo "$pcdir" | sed "s|$work/prefix|$work/moved|")
cc -std=c99 -o "$work/example2" "$src/examples/example.c" $(pkg-config $static --cflags --libs actq) -lm
LD_LIBRARY_PATH=$(pkg-config --variable=libdir actq) "$work/example2" >/dev/null

# 3. CMake package
cmake -S "$src/tests/install/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/moved" \
  -DACTQ_EXAMPLE="$src/examples/example.c" >/dev/null
cmake --build "$work/consumer" >/dev/null
"$work/consumer/consumer" >/dev/null
echo "install, pkg-config and find_package consumers: ok"
