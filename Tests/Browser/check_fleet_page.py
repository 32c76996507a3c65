#!/usr/bin/env python3
"""Loads the fleet page in headless Chromium and waits, on the real clock, for its status line to count the cars.

Prints one JSON object: the status line as shown, whether Leaflet took the map's element, and the side panel's
operability numbers (the cells of its "Since this node started" table) by id. The wait is for the
page's own state (the stream's snapshot arrived), not for a fixed time, so a busy machine only makes it slower.
"""
import argparse
import json

from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from check_pages import browser


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--status-prefix", required=True)
    args = parser.parse_args()
    driver = browser()
    try:
        driver.get(args.url)
        try:
            WebDriverWait(driver, 60).until(
                lambda d: d.find_element(By.ID, "status").text.startswith(args.status_prefix))
        except TimeoutException:
            pass
        result = {
            "status": driver.find_element(By.ID, "status").text,
            "leaflet": len(driver.find_elements(By.CSS_SELECTOR, "#map.leaflet-container")) == 1,
            "operability": {
                cell.get_attribute("id"): cell.text
                for cell in driver.find_elements(By.CSS_SELECTOR, "#operability td[id]")
            },
        }
    finally:
        driver.quit()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
