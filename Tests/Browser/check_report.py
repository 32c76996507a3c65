#!/usr/bin/env python3
"""Opens a Hail HTML report (`hail sim --report report.html`) in headless Chromium with Selenium, offline.

Prints one JSON object: the page's title, what its plots drew (SVGs, bars, budget lines, stacked areas) and
what it tried to fetch (nothing, for a report that opens offline). The screenshot goes to --artefacts.
"""
import argparse
import json
import os
import pathlib

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

DRAWN = """
return {
  svgs: Array.from(document.querySelectorAll('svg')).map(s => s.id),
  bars: document.querySelectorAll('svg rect.bar').length,
  budgets: document.querySelectorAll('svg line.budget').length,
  areas: Array.from(document.querySelectorAll('svg polygon.area')).map(p => p.getAttribute('data-state')),
  fetched: performance.getEntriesByType('resource').map(r => r.name),
  width: document.getElementById('freshness-svg').getBoundingClientRect().width,
};
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--report", required=True)
    parser.add_argument("--artefacts", required=True)
    args = parser.parse_args()
    os.makedirs(args.artefacts, exist_ok=True)
    options = Options()
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--window-size=1100,1500"):
        options.add_argument(flag)
    options.binary_location = "/usr/bin/chromium"
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        driver.get(pathlib.Path(args.report).resolve().as_uri())
        result = driver.execute_script(DRAWN)
        result["title"] = driver.title
        shot = os.path.join(args.artefacts, "report.png")
        driver.save_screenshot(shot)
        result["screenshot"] = shot
    finally:
        driver.quit()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
