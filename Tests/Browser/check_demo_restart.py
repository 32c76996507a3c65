#!/usr/bin/env python3
"""Starts `hail demo` (the generated city, from an empty directory), opens its console in headless Chromium
with Selenium, presses "Restart the server" and follows the console's stream back.

Prints one JSON object: the press's answer, the snapshots the page received before and after, the cars it
shows after, and the screenshot (in --artefacts). The demo is stopped with SIGTERM at the end.
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time

from check_pages import browser
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait


def main():
    parser = argparse.ArgumentParser()
    for name in ("--hail", "--directory", "--artefacts"):
        parser.add_argument(name, required=True)
    args = parser.parse_args()
    os.makedirs(args.artefacts, exist_ok=True)
    demo = subprocess.Popen(
        [args.hail, "demo", "--port", "0", "--drivers", "6", "--riders", "3"], cwd=args.directory,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    result = {}
    driver = None
    try:
        url = None
        deadline = time.monotonic() + 60
        while url is None and time.monotonic() < deadline:
            line = demo.stdout.readline()
            if not line:
                break
            found = re.search(r"(http://127\.0\.0\.1:\d+/\?access_token=\S+)", line)
            url = found.group(1) if found else None
        if url is None:
            raise RuntimeError("hail demo printed no console URL")
        driver = browser()
        driver.get(url)
        # Deadlines, not waits: generous because `make test` runs other browsers and cities at the same time.
        wait = WebDriverWait(driver, 90)
        wait.until(lambda d: d.execute_script("return hail.cars.size") >= 6)
        wait.until(lambda d: d.find_element(By.ID, "demo").is_displayed())
        result["snapshotsBefore"] = driver.execute_script("return hail.snapshots")
        driver.find_element(By.CSS_SELECTOR, '#faults-server button[data-fault="restartServer"]').click()
        wait.until(lambda d: d.find_element(By.ID, "demo-answer").text != "")
        result["answer"] = driver.find_element(By.ID, "demo-answer").text
        # The old server closes every socket; the page reconnects and starts again from a new snapshot.
        WebDriverWait(driver, 45).until(lambda d: d.execute_script("return hail.snapshots") > result["snapshotsBefore"])
        WebDriverWait(driver, 45).until(lambda d: d.execute_script("return hail.cars.size") >= 6)
        result["snapshotsAfter"] = driver.execute_script("return hail.snapshots")
        result["carsAfter"] = driver.execute_script("return hail.cars.size")
        result["statusAfter"] = driver.find_element(By.ID, "status").text
        shot = os.path.join(args.artefacts, "console-after-restart.png")
        driver.save_screenshot(shot)
        result["screenshot"] = shot
    finally:
        if driver is not None:
            driver.quit()
        demo.send_signal(signal.SIGTERM)
        try:
            output, _ = demo.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            demo.kill()
            output, _ = demo.communicate()
        result["restartedLine"] = "The server restarted on port" in (output or "")
        result["exitCode"] = demo.returncode
    print(json.dumps(result))


if __name__ == "__main__":
    main()
