# Source this on the GPU device machine (which has CuPy and NumPy, no Qt,
# astropy or casacore) to make `import uvlab` work from the working tree
# without installing: a namespace-package shim over the top-level folders.
mkdir -p /tmp/uvlab-shim/uvlab
for d in app gpu widgets resources; do ln -sfn "$PWD/$d" "/tmp/uvlab-shim/uvlab/$d"; done
export PYTHONPATH="/tmp/uvlab-shim${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1
