"""The page life cycle (hetdp_ui.page.page_shell): the order is fixed by the context, and a page that
breaks it fails loudly instead of drawing half a page."""

import pytest
from streamlit import config
from streamlit.testing.v1 import AppTest


@pytest.fixture(autouse=True)
def _error_details():
    """The production setting redacts exception messages; these tests read them."""
    before = config.get_option("client.showErrorDetails")
    config.set_option("client.showErrorDetails", "full")
    yield
    config.set_option("client.showErrorDetails", before)


def _page(body: str) -> AppTest:
    script = (
        "from hetdp_core.scenarios import dp_sgd_schedules as ds\n"
        "from hetdp_ui import common as ui\n"
        "with ui.page_shell(ds) as page:\n"
        "    page.state.number('trials')\n" + "".join(f"    {line}\n" for line in body.splitlines())
    )
    at = AppTest.from_string(script, default_timeout=120)
    at.query_params.update({"runs": "5", "steps": "200"})
    return at.run()


def test_a_page_that_runs_gets_the_meaning_panel_and_report_at_its_end():
    at = _page("result = page.run()")
    assert not at.exception, at.exception
    assert any("In short" in m.value for m in at.markdown)
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Download a report (HTML, opens offline; print it to PDF)" in labels  # added on leaving


def test_the_meaning_panel_before_the_run_or_twice_raises():
    at = _page("page.meaning_and_report()")
    assert at.exception and "needs page.run() first" in at.exception[0].message
    at = _page("page.run()\npage.meaning_panel()\npage.meaning_panel()")
    assert at.exception and "is shown once" in at.exception[0].message


def test_a_page_that_never_runs_or_runs_twice_raises():
    at = _page("pass")
    assert at.exception and "never called page.run()" in at.exception[0].message
    at = _page("page.run()\npage.run()")
    assert at.exception and "called twice" in at.exception[0].message
