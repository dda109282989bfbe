# esmio front door: make deps | build | demo | test. Each target does the steps before it.
BUILD ?= build
NP ?= 4
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
export OMPI_ALLOW_RUN_AS_ROOT := 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM := 1
MPIRUN ?= mpirun --oversubscribe

# Debian packages (DESIGN.md): MPI, PnetCDF, netCDF-C with MPI, parallel HDF5, zstd, the real
# clients used by tests, gfortran for the Fortran module, venv/pip for the Python package test,
# fio for the raw-disk reference, real model fields for compression, chromium (headless) for
# esmio-report's screenshot test.
DEPS := build-essential cmake pkg-config libgtest-dev clang-format gfortran \
        openmpi-bin libopenmpi-dev libpnetcdf-dev pnetcdf-bin libnetcdf-mpi-dev \
        libhdf5-openmpi-dev libzstd-dev libxxhash-dev nlohmann-json3-dev netcdf-bin cdo nco \
        python3-netcdf4 python3-xarray python3-mpi4py python3-numpy python3-matplotlib \
        python3-venv python3-pip python3-setuptools \
        fio libncarg-data libfuse3-dev fuse3 chromium

.PHONY: deps build demo test clean format

deps:
	@missing=$$(for p in $(DEPS); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
	  grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "make deps: installing$$(echo $$missing | tr '\n' ' ')"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	else echo "make deps: all packages present"; fi

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	@mkdir -p demo/out
	$(MPIRUN) -np $(NP) $(BUILD)/esmio_demo demo/out/cam_fvd_h0.nc 3

test: build
	cd $(BUILD) && ctest --output-on-failure --timeout 600

format:
	clang-format -i $$(git ls-files '*.c' '*.h' '*.cpp' '*.hpp')

clean:
	rm -rf $(BUILD) demo/out
