#!/bin/sh
# autogen.sh: generate configure and Makefile.in from a git checkout
# SPDX-License-Identifier: BSD-3-Clause
set -e
cd "`dirname "$0"`"
autoreconf --install --force --warnings=all
