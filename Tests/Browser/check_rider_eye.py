#!/usr/bin/env python3
"""Drives the operator's console of a demo server (headless Chromium, Selenium): opens a car on a trip whose
simulated rider is watching, presses a dead zone for its driver, and follows the rider's-eye pin.

Prints one JSON object: the trip, the pin states seen in order after the press, the fault's answer, and the
screenshots (in --artefacts).
"""
import argparse
import json
import os
import sys
import time

from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

CANDIDATES = """return Array.from(hail.cars.values())
  .filter(c => c.tripState === 'driverAssigned' || c.tripState === 'onTrip').map(c => c.driverID);"""


def browser():
    options = Options()
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--window-size=1200,900"):
        options.add_argument(flag)
    options.binary_location = "/usr/bin/chromium"
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def main():
    parser = argparse.ArgumentParser()
    for name in ("--base", "--operator-token", "--artefacts"):
        parser.add_argument(name, required=True)
    args = parser.parse_args()
    os.makedirs(args.artefacts, exist_ok=True)
    result = {"screenshots": []}
    driver = browser()
    try:
        driver.get(f"{args.base}/?access_token={args.operator_token}")
        # Deadlines, not waits: generous because `make test` runs other browsers and cities at the same time.
        WebDriverWait(driver, 90).until(lambda d: d.execute_script("return hail.cars.size") > 0)
        # A car on a trip whose simulated rider shows a live pin: try the candidates until one does.
        chosen = None
        deadline = time.monotonic() + 90
        while chosen is None and time.monotonic() < deadline:
            for driver_id in driver.execute_script(CANDIDATES):
                driver.execute_script(
                    "const c = hail.cars.get(arguments[0]); if (c) hail.map.setView(c.spot, hail.map.getZoom(), "
                    "{animate: false});", driver_id)
                try:
                    element = WebDriverWait(driver, 5).until(
                        lambda d: d.find_element(By.CSS_SELECTOR, f'.car[data-driver="{driver_id}"]'))
                    element.click()
                    WebDriverWait(driver, 5).until(
                        lambda d: d.execute_script("return hail.rider && hail.rider.pin") == "live")
                    chosen = driver_id
                    break
                except Exception:
                    continue
            if chosen is None:
                # No candidate yet: wait for the fleet to change (a deadline, not a pause: it returns at once
                # when a new car starts a trip).
                known = set(driver.execute_script(CANDIDATES))
                try:
                    WebDriverWait(driver, 5).until(lambda d: set(d.execute_script(CANDIDATES)) - known)
                except TimeoutException:
                    pass
        if chosen is None:
            raise TimeoutException("no car on a trip with a simulated rider showing a live pin within 90 s")
        result["driver"] = chosen
        result["trip"] = driver.execute_script("return hail.rider.tripID")
        result["riderShown"] = driver.find_element(By.ID, "rider").value_of_css_property("display")
        driver.execute_script("hail.pins = [hail.rider.pin];")
        driver.find_element(By.CSS_SELECTOR, '#faults button[data-fault="deadZone"]').click()
        WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "fault-answer").text != "")
        result["answer"] = driver.find_element(By.ID, "fault-answer").text
        pressed = time.monotonic()
        # The pin ages past 6 s (updating) while the phone is in the dead zone...
        WebDriverWait(driver, 30).until(
            lambda d: "updating" in d.execute_script("return hail.pins") or "locating" in d.execute_script(
                "return hail.pins"))
        result["secondsToUpdating"] = round(time.monotonic() - pressed, 1)
        result["bannerWhileDead"] = driver.execute_script(
            "return document.querySelector('#rider [data-rider=\"banner\"]').textContent")
        shot = os.path.join(args.artefacts, "rider-eye-dead-zone.png")
        driver.save_screenshot(shot)
        result["screenshots"].append(shot)
        # ...and goes live again once it is over and the phone sends again (or the trip ends meanwhile).
        try:
            WebDriverWait(driver, 45).until(
                lambda d: d.execute_script("return hail.pins[hail.pins.length - 1]") == "live"
                and len(d.execute_script("return hail.pins")) > 1)
            result["secondsToLiveAgain"] = round(time.monotonic() - pressed, 1)
        except TimeoutException:
            pass
        result["pins"] = driver.execute_script("return hail.pins")
        shot = os.path.join(args.artefacts, "rider-eye-recovered.png")
        driver.save_screenshot(shot)
        result["screenshots"].append(shot)
    finally:
        driver.quit()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
