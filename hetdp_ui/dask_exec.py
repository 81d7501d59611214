"""Run a scenario's sweep points on Dask (optional extra: ``pip install .[dask]``).

The page runs accept any executor with ``map`` (:func:`hetdp_core.scenarios._common.map_points`);
each point derives its own random stream from the scenario's seed and the point's value, so results
are identical on threads, on a local cluster and on a remote one.

* ``hetdp run … --dask local`` / ``hetdp reproduce … --dask local``: a ``LocalCluster`` of worker
  processes on this machine (one per core, one thread each) for the duration of the command.
* ``--dask tcp://host:8786``: a running scheduler.
* The app uses the scheduler named in the environment variable ``HETDP_DASK`` when it is set
  (``local`` starts one cluster per server process) and its own threads otherwise.

Faults: a scheduler that does not answer within ``CONNECT_TIMEOUT`` seconds, or that has no worker
within that time, is a one-line error naming the option or variable (never a hang); a worker that
dies mid-sweep has its points re-run on the other workers by the scheduler (the results are the
same: seeds are per point); if points keep failing (Dask's ``allowed-failures``), the sweep stops
with :class:`ClusterError`. The app reconnects when its connection has closed (a scheduler
restart), and a sweep that loses its scheduler midway is reported as :class:`ClusterError`, after
which the page computes on its own threads.
"""

from __future__ import annotations

import atexit
import os
import threading
from contextlib import contextmanager

__all__ = [
    "ClusterError",
    "DaskExecutor",
    "dask_executor",
    "local_cluster",
    "app_executor",
    "close_app_executor",
    "CONNECT_TIMEOUT",
    "ENV",
]

CONNECT_TIMEOUT = 5.0
ENV = "HETDP_DASK"


class ClusterError(RuntimeError):
    """The Dask cluster could not be reached or could not finish the sweep."""


class DaskExecutor:
    """``map`` over a ``distributed.Client``: submit every point, gather in order."""

    def __init__(self, client, source: str):
        self.client = client
        self.source = source

    def map(self, fn, items):
        import concurrent.futures

        from distributed import KilledWorker
        from distributed.client import ClosedClientError
        from distributed.comm.core import CommClosedError

        items = list(items)
        futures = []
        try:
            futures = self.client.map(fn, items, pure=False)
            return self.client.gather(futures)
        except KilledWorker as exc:
            raise ClusterError(
                f"{self.source}: Dask workers died repeatedly while computing a sweep point "
                f"({exc}); the sweep did not complete. Check the workers' memory limits."
            ) from None
        except (TimeoutError, CommClosedError, ClosedClientError, OSError, concurrent.futures.CancelledError) as exc:
            raise ClusterError(
                f"{self.source}: the connection to the Dask scheduler was lost during a sweep ({type(exc).__name__})."
            ) from None
        finally:
            for f in futures:
                try:
                    f.release()
                except Exception:  # noqa: BLE001 — client already closed
                    pass

    @property
    def alive(self) -> bool:
        return getattr(self.client, "status", "") in ("running", "connecting")


def _import_distributed(source: str):
    try:
        import distributed
    except ImportError:
        raise ClusterError(
            f"{source}: Dask is not installed. Install the optional extra: "
            "pip install 'hetdp[dask]' (or .venv/bin/pip install -e '.[dask]')."
        ) from None
    return distributed


def local_cluster(distributed, n_workers: int | None = None):
    """A LocalCluster of worker processes (one thread each) whose BLAS uses the same number of
    threads as this process: Dask's default sets OMP/MKL/OPENBLAS_NUM_THREADS=1 in its workers,
    which changes the summation order of BLAS reductions and with it the last float32 bits of the
    Feature-privacy server's sums. Keeping the threading equal makes results bit-identical to the
    threaded run (tested)."""
    import dask

    env = {
        k: v
        for k, v in dask.config.get("distributed.nanny.pre-spawn-environ", {}).items()
        if not k.endswith("_NUM_THREADS")
    }
    with dask.config.set({"distributed.nanny.pre-spawn-environ": env}):
        return distributed.LocalCluster(
            n_workers=n_workers or max(1, min(os.cpu_count() or 1, 8)),
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
        )


@contextmanager
def dask_executor(address: str, *, source: str = "--dask"):
    """An executor on ``address`` (``local`` or ``tcp://host:port``) for the duration of a block."""
    distributed = _import_distributed(source)
    address = address.strip()
    if not address:
        raise ClusterError(f"{source}: empty address. Use 'local' or a scheduler address like tcp://host:8786.")
    cluster = None
    try:
        if address == "local":
            cluster = local_cluster(distributed)
            client = distributed.Client(cluster, timeout=CONNECT_TIMEOUT * 6)
        else:
            if "://" not in address:
                raise ClusterError(f"{source}: {address!r} is not a scheduler address. Use 'local' or tcp://host:8786.")
            client = distributed.Client(address, timeout=CONNECT_TIMEOUT)
        if address != "local":
            try:  # a scheduler with no worker would accept the sweep and never run it
                client.wait_for_workers(1, timeout=CONNECT_TIMEOUT)
            except Exception:  # noqa: BLE001 — a timeout, or the scheduler going away meanwhile
                client.close()
                raise ClusterError(
                    f"{source}: the Dask scheduler at {address} has no worker (none joined within "
                    f"{CONNECT_TIMEOUT:g} s). Start workers (dask worker {address}) or use "
                    f"'{source} local'."
                ) from None
    except ClusterError:
        raise
    except Exception as exc:  # noqa: BLE001 — anything on the way to a foreign address: refused,
        if cluster is not None:  # timed out, or something that is not a Dask scheduler answering
            cluster.close()
        if address == "local":
            raise ClusterError(
                f"{source}: could not start a local Dask cluster ({type(exc).__name__}: {exc})."
            ) from None
        raise ClusterError(
            f"{source}: no Dask scheduler answered at {address} within {CONNECT_TIMEOUT:g} s "
            f"({type(exc).__name__}). Start one (dask scheduler) or use '{source} local'."
        ) from None
    try:
        yield DaskExecutor(client, source)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


_APP = {"key": None, "ctx": None, "executor": None}
_APP_LOCK = threading.Lock()


def app_executor():
    """The app's executor: Dask on ``$HETDP_DASK`` when set (one connection per server process),
    else None (the runs use their own threads). Raises :class:`ClusterError` when the variable names
    a scheduler that cannot be reached."""
    address = os.environ.get(ENV, "").strip()
    if not address:
        return None
    with _APP_LOCK:
        if _APP["executor"] is not None and not _APP["executor"].alive:  # e.g. the scheduler restarted
            close_app_executor(locked=True)
        if _APP["key"] != address:
            close_app_executor(locked=True)
            ctx = dask_executor(address, source=ENV)
            executor = ctx.__enter__()
            _APP.update(key=address, ctx=ctx, executor=executor)
            if not _APP.get("atexit"):
                atexit.register(close_app_executor)  # close the connection before interpreter teardown
                _APP["atexit"] = True
        return _APP["executor"]


def close_app_executor(*, locked: bool = False) -> None:
    """Close the app's Dask connection (and its local cluster), if any."""
    if not locked:
        with _APP_LOCK:
            return close_app_executor(locked=True)
    ctx = _APP.get("ctx")
    _APP.update(key=None, ctx=None, executor=None)
    if ctx is not None:
        try:
            ctx.__exit__(None, None, None)
        except Exception:  # noqa: BLE001 — already closed
            pass
