"""The web page in a real browser: headless Chromium driven by Selenium through the system's
chromedriver (Selenium Manager never downloads anything: ``SE_OFFLINE=true`` and an explicit
driver path). Typing updates the counts, which equal ``tok.count``; hostile text and a hostile
vocabulary show as literal text with no dialog, no script, no CSP violation and no console
error (ADVERSARIAL.md L1, L2, L7); the options, the URL state, the hover card, the size limit
and a broken tokenizer file behave. Screenshots go to the test's tmp folder and to
/tmp/tokenmill-serve.png.

Chromium and chromedriver come from Debian (``apt-get install -y chromium chromium-driver``):
when they are missing the test installs them once if it runs as root, and otherwise fails
saying how to install them (never a silent skip).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

import tokenmill
from conftest_browser import EVIL_SPECIAL, EVIL_WORDS, files, server  # noqa: F401 (fixtures)
from tokenmill.viz.tokens import encode_options

try:
    from selenium import webdriver
    from selenium.common.exceptions import NoAlertPresentException, StaleElementReferenceException, TimeoutException
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:  # reported by the fixture as a failure with the fix
    webdriver = None

SCREENSHOT = Path("/tmp/tokenmill-serve.png")
INSTALL = "apt-get install -y chromium chromium-driver"
_tried_install: list[bool] = []

# Records dialogs, CSP violations and script errors in the page, from before any page script runs.
_WATCH = """
window.__tm = {dialogs: [], violations: [], errors: []};
for (const k of ["alert", "confirm", "prompt", "print"]) {
  window[k] = function (m) { window.__tm.dialogs.push(k + ":" + String(m)); };
}
document.addEventListener("securitypolicyviolation", (e) => window.__tm.violations.push(e.violatedDirective + " " + e.blockedURI));
window.addEventListener("error", (e) => window.__tm.errors.push(String(e.message)));
"""


def _find() -> tuple[str | None, str | None]:
    browser = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
    return browser, shutil.which("chromedriver")


def _browser_paths() -> tuple[str, str]:
    browser, driver = _find()
    if (browser is None or driver is None) and not _tried_install and hasattr(os, "geteuid") and os.geteuid() == 0 \
            and shutil.which("apt-get"):
        _tried_install.append(True)
        r = subprocess.run(INSTALL.split(), capture_output=True, text=True, timeout=900,
                           env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
        if r.returncode != 0:
            pytest.fail(f"chromium/chromedriver are missing and `{INSTALL}` failed:\n{r.stderr[-2000:]}")
        browser, driver = _find()
    if browser is None or driver is None:
        pytest.fail(f"the browser test needs Chromium and chromedriver: run `sudo {INSTALL}` (Debian/Ubuntu) "
                    "or put `chromium` and `chromedriver` of the same version on PATH")
    return browser, driver


@pytest.fixture(scope="module")
def driver():
    if webdriver is None:
        pytest.fail("the browser test needs selenium: pip install 'tokenmill[test]' (or pip install selenium)")
    browser, chromedriver = _browser_paths()
    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager must never fetch a browser or driver
    opts = webdriver.ChromeOptions()
    opts.binary_location = browser
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1100",
                "--no-first-run", "--disable-extensions", "--lang=en-US"):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    d = webdriver.Chrome(service=Service(executable_path=chromedriver), options=opts)
    d.set_page_load_timeout(30)
    d.set_script_timeout(30)
    d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": _WATCH})
    yield d
    d.quit()


def _open(driver, server, encodings: list[str], extra: str = "") -> None:
    driver.get(f"{server.url}?encodings={','.join(encodings)}{extra}")
    WebDriverWait(driver, 15).until(lambda d: d.find_elements(By.CSS_SELECTOR, "[data-testid^='count-']"))


def _set_text(driver, text: str) -> None:
    # send_keys cannot type characters outside the BMP (emoji), so long or rich text is set
    # directly and announced with the same input event typing fires.
    driver.execute_script("const t = document.querySelector('[data-testid=input]'); t.value = arguments[0];"
                          "t.dispatchEvent(new Event('input', {bubbles: true}));", text)


def _counts(driver, names: list[str]) -> dict[str, str]:
    out = {}
    for n in names:
        try:
            els = driver.find_elements(By.CSS_SELECTOR, f"[data-testid={json.dumps('count-' + n)}]")
            out[n] = els[0].text if els else None
        except StaleElementReferenceException:  # the panels were rebuilt meanwhile
            out[n] = None
    return out


def _wait_counts(driver, expected: dict[str, int], timeout: float = 15) -> None:
    want = {n: str(c) for n, c in expected.items()}
    try:
        WebDriverWait(driver, timeout).until(lambda d: {n: re.sub(r"\D", "", v or "") for n, v in _counts(d, list(want)).items()} == want)
    except TimeoutException:
        raise AssertionError(f"counts in the page {_counts(driver, list(want))} != expected {want}") from None


def _assert_clean(driver) -> None:
    try:
        alert = driver.switch_to.alert
        text = alert.text
        alert.dismiss()
        raise AssertionError(f"a dialog opened: {text!r}")
    except NoAlertPresentException:
        pass
    watch = driver.execute_script("return window.__tm")
    assert watch == {"dialogs": [], "violations": [], "errors": []}, watch
    severe = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert not severe, severe
    # The page's only script is its own app.js, and no element came from token or user text.
    assert driver.execute_script("return Array.from(document.scripts).map(s => new URL(s.src).pathname)") == ["/app.js"]
    assert driver.execute_script("return document.querySelectorAll('#panels img, #panels script, #panels iframe, "
                                 "#panels a, #panels [onerror], #panels [onmouseover], #panels [style]').length") == 0


def _tokenizers(files) -> dict[str, object]:
    toks = {n: tokenmill.get_encoding(n) for n in ("gpt2", "cl100k_base", "o200k_base")}
    toks["bert-base-uncased/tokenizer.json"] = tokenmill.load(str(files["bert"])).with_padding(None).with_truncation(None)
    return toks


def test_typing_updates_counts_equal_to_count(driver, server, files, tmp_path):
    toks = _tokenizers(files)
    _open(driver, server, list(toks))
    box = driver.find_element(By.CSS_SELECTOR, "[data-testid=input]")
    box.clear()
    typed = "Hello world, tokens and\nnew lines."  # no tab: Tab moves the focus out of a text box
    box.send_keys(typed)
    _wait_counts(driver, {n: t.count(typed, **encode_options(False)) for n, t in toks.items()})
    rich = ("Tokenizers turn text into integers; \"hello world\" is 2 tokens.\n"
            "def add(a, b):\n    return a + b  # code keeps its indentation\n"
            "Emoji 👍🏽 and flags 🇫🇷, accents: naïve café.\n中文分词，日本語のテキスト、한국어 문장.\n")
    _set_text(driver, rich)
    _wait_counts(driver, {n: t.count(rich, **encode_options(False)) for n, t in toks.items()})
    # The state is in the address, so the view can be shared.
    query = driver.execute_script("return location.search")
    assert "encodings=gpt2,cl100k_base,o200k_base,bert-base-uncased" in query and "text=" in query
    # The ranking lists the tokenizers by tokens.
    ranked = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#ranking tbody td.name")]
    assert ranked == sorted(toks, key=lambda n: (toks[n].count(rich, **encode_options(False)), n))
    # Partial UTF-8 shows as byte escapes, whitespace as marks.
    gpt2 = driver.find_element(By.CSS_SELECTOR, "[data-testid='tokens-gpt2']").text
    assert "<0xF0>" in gpt2 and "\u00b7" in gpt2 and "\u21b5" in gpt2
    _assert_clean(driver)
    driver.save_screenshot(str(tmp_path / "serve.png"))


def test_hostile_text_and_vocabulary_stay_text(driver, server, files, tmp_path):
    names = ["gpt2", "evil-vocab.json"]
    _open(driver, server, names, "&special=1")
    hostile = "<img src=x onerror=alert(1)> <script>alert(1)</script> </textarea> {{7*7}} ${7*7}"
    text = hostile + "\n" + "\n".join(EVIL_WORDS) + "\n" + EVIL_SPECIAL
    _set_text(driver, text)
    gpt2 = tokenmill.get_encoding("gpt2")
    evil = tokenmill.load(str(files["evil"]))
    _wait_counts(driver, {"gpt2": gpt2.count(text, **encode_options(True)),
                          "evil-vocab.json": evil.count(text, **encode_options(True))})
    shown = driver.find_element(By.CSS_SELECTOR, "[data-testid='tokens-gpt2']").text.replace("\u00b7", " ")
    assert hostile in shown
    vocab_view = driver.find_element(By.CSS_SELECTOR, "[data-testid='tokens-evil-vocab.json']").text.replace("\u00b7", " ")
    for word in EVIL_WORDS[:4] + [EVIL_SPECIAL]:
        assert word in vocab_view, word
    assert "\\u202eevil\\u2066" in vocab_view and "\u202e" not in vocab_view  # the bidi override is shown, not applied
    # Each token is isolated for bidi.
    assert driver.execute_script("return getComputedStyle(document.querySelector('.t')).unicodeBidi") == "isolate"
    _assert_clean(driver)
    driver.save_screenshot(str(tmp_path / "hostile.png"))


def test_options_hover_limit_and_bad_file(driver, server, files):
    _open(driver, server, ["gpt2", "broken-tokenizer.json"])
    _set_text(driver, "<|endoftext|> hi")
    _wait_counts(driver, {"gpt2": tokenmill.get_encoding("gpt2").count("<|endoftext|> hi", **encode_options(False))})
    # A broken file is a message in its panel; the other tokenizer still works.
    err = driver.find_element(By.CSS_SELECTOR, "article[data-name='broken-tokenizer.json'] .error").text
    assert "could not load" in err and "broken-tokenizer.json" in err
    driver.find_element(By.CSS_SELECTOR, "[data-testid=parse-special]").click()
    _wait_counts(driver, {"gpt2": 2})
    driver.find_element(By.CSS_SELECTOR, "[data-testid=show-ids]").click()
    WebDriverWait(driver, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, "[data-testid='ids-gpt2']"))
    assert driver.find_element(By.CSS_SELECTOR, "[data-testid='ids-gpt2']").text.split() == ["50256", "23105"]
    assert "special=1" in driver.execute_script("return location.search")
    # Hovering a token shows its id and bytes.
    token = driver.find_element(By.CSS_SELECTOR, "[data-testid='tokens-gpt2'] .t")
    ActionChains(driver).move_to_element(token).perform()
    WebDriverWait(driver, 5).until(lambda d: d.find_element(By.ID, "tip").is_displayed())
    tip = driver.find_element(By.ID, "tip").text
    assert "50256" in tip and "3c 7c 65 6e 64" in tip and "special" in tip
    # Over the size limit: a clear message, no request.
    _set_text(driver, "x" * (server.max_body + 10))
    WebDriverWait(driver, 10).until(lambda d: d.find_element(By.CSS_SELECTOR, "[data-testid=banner]").is_displayed())
    assert "at most 1,048,576 bytes" in driver.find_element(By.CSS_SELECTOR, "[data-testid=banner]").text
    _assert_clean(driver)


def test_url_restores_the_view_and_names_only_offered_tokenizers(driver, server):
    driver.get(f"{server.url}?encodings=gpt2,/etc/passwd,http://169.254.169.254/&text=hi%20there&ids=1")
    _wait_counts(driver, {"gpt2": 2})
    assert driver.find_element(By.CSS_SELECTOR, "[data-testid=input]").get_attribute("value") == "hi there"
    assert driver.find_element(By.CSS_SELECTOR, "[data-testid='ids-gpt2']").text.split() == ["5303", "612"]
    banner = driver.find_element(By.CSS_SELECTOR, "[data-testid=banner]").text
    assert "Not offered by this server: /etc/passwd, http://169.254.169.254/" in banner
    assert len(driver.find_elements(By.CSS_SELECTOR, "article.panel")) == 1
    _assert_clean(driver)


def test_long_text_shows_the_first_tokens_and_exact_counts(driver, server):
    _open(driver, server, ["gpt2"])
    text = " word" * 30_000
    _set_text(driver, text)
    _wait_counts(driver, {"gpt2": 30_000})
    note = driver.find_element(By.CSS_SELECTOR, "[data-testid='truncated-gpt2']")
    assert "first 5,000 of 30,000" in note.text
    boxes = "return document.querySelectorAll(\"[data-testid='tokens-gpt2'] .t\").length"
    assert driver.execute_script(boxes) == 5000
    note.find_element(By.TAG_NAME, "button").click()
    WebDriverWait(driver, 15).until(lambda d: d.execute_script(boxes) == 20_000)
    assert "first 20,000 of 30,000" in driver.find_element(By.CSS_SELECTOR, "[data-testid='truncated-gpt2']").text
    _assert_clean(driver)


def test_screenshot_for_people(driver, server, files, tmp_path):
    driver.set_window_size(1400, 1500)  # tall enough for the compression table
    _open(driver, server, ["gpt2", "cl100k_base", "o200k_base"])
    driver.find_element(By.ID, "example").click()
    toks = {n: tokenmill.get_encoding(n) for n in ("gpt2", "cl100k_base", "o200k_base")}
    text = driver.find_element(By.CSS_SELECTOR, "[data-testid=input]").get_attribute("value")
    _wait_counts(driver, {n: t.count(text, **encode_options(False)) for n, t in toks.items()})
    time.sleep(0.3)  # let the layout settle before the picture
    _assert_clean(driver)
    path = tmp_path / "tokenmill-serve.png"
    assert driver.save_screenshot(str(path)) and path.stat().st_size > 10_000
    try:
        shutil.copyfile(path, SCREENSHOT)
    except OSError:
        pass  # a read-only /tmp must not fail the test; the tmp_path copy is the artefact
