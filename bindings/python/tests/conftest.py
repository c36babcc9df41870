"""Tests import the package from this checkout (bindings/python), and find libactq through
ACTQ_LIBRARY as a user would (scripts/test-python sets it to a freshly installed copy)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
REPO = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
