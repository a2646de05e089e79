"""What the tests share, and nothing else: no test module imports another test module.

- :mod:`tests.support.paths`: the repository root and the data folders;
- :mod:`tests.support.device`: whether a CUDA device is there;
- :mod:`tests.support.oracles`: independent reference computations (DFTs, DESIGN §1's
  brightness matrix, pixel directions, peak fits);
- :mod:`tests.support.scenes`: engine scenes (a real array's uv coverage, a pixel sky), NumPy only;
- :mod:`tests.support.observations`: the lab's small observation (needs uvlab.app);
- :mod:`tests.support.gridding`: the cases and records of the CUDA gridder tests;
- :mod:`tests.support.ms_factory`: synthetic MeasurementSets of known contents;
- :mod:`tests.support.nonfinite`: NaN and Inf written into a real MeasurementSet;
- :mod:`tests.support.cli`: the command line run in-process, sky files;
- :mod:`tests.support.memory`: fake /proc and /sys trees for the memory checks.
"""
