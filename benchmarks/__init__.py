"""Benchmarks of Attention Lab and the browser harness they share with the tests; run each as a module from
the repository root, e.g. `python -m benchmarks.load`."""
