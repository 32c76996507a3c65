#!/usr/bin/env python3
"""Drives headless Chromium with Selenium over Hail's pages against a running server.

Prints one JSON object: what the fleet map drew (road pixels, cars and how far they moved between two
screenshots), what the share page showed, and what an expired link showed. Screenshots go to --artefacts.
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

ROADS = "return document.querySelectorAll('.leaflet-overlay-pane path').length > 0 ? hail.roads : 0;"
CARS = """return Array.from(hail.cars.values()).map(car =>
  [car.driverID, car.location.coordinate.lat, car.location.coordinate.lng]);"""
CARD = """const card = {};
for (const dd of document.querySelectorAll('#card [data-field]')) card[dd.getAttribute('data-field')] = dd.textContent;
card.shown = document.getElementById('card').style.display;
return card;"""


def browser():
    options = Options()
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--window-size=1200,900"):
        options.add_argument(flag)
    options.binary_location = "/usr/bin/chromium"
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cars", default="1")
    for name in ("--base", "--operator-token", "--share-token", "--trip-id", "--expired-token", "--artefacts"):
        parser.add_argument(name, required=True)
    args = parser.parse_args()
    os.makedirs(args.artefacts, exist_ok=True)
    shots = []
    result = {}
    driver = browser()
    try:
        # The share page first, while its trip is surely still under way.
        driver.get(f"{args.base}/share/{args.share_token}")
        WebDriverWait(driver, 30).until(lambda d: d.execute_script("return typeof trip !== 'undefined' && trip !== null"))
        result["shareTrip"] = driver.find_element(By.ID, "state").get_attribute("data-trip")
        result["shareLoadedTrip"] = driver.execute_script("return trip.id")
        result["shareState"] = driver.find_element(By.ID, "state").text
        result["shareRoads"] = driver.execute_script("return roads.length / 4")
        shots.append(os.path.join(args.artefacts, "share.png"))
        driver.save_screenshot(shots[-1])

        driver.get(f"{args.base}/share/{args.expired_token}")
        result["expired"] = driver.find_element(By.ID, "refused").text
        shots.append(os.path.join(args.artefacts, "share-expired.png"))
        driver.save_screenshot(shots[-1])

        driver.get(f"{args.base}/?access_token={args.operator_token}")
        opened = time.monotonic()
        wait = WebDriverWait(driver, 30)
        try:
            wait.until(lambda d: d.execute_script("return hail.cars.size") >= int(args.cars))
        except TimeoutException:
            status = driver.find_element(By.ID, "status").text
            raise TimeoutException(f"the fleet map had {driver.execute_script('return hail.cars.size')} of "
                                   f"{args.cars} cars after 30 s; its status line: {status!r}")
        print(f"fleet map: {args.cars} cars after {time.monotonic() - opened:.1f} s", file=sys.stderr)
        wait.until(lambda d: d.execute_script(ROADS) > 0)
        result["roads"] = driver.execute_script(ROADS)
        before = {car[0]: car[1:] for car in driver.execute_script(CARS)}
        shots.append(os.path.join(args.artefacts, "fleet-1.png"))
        driver.save_screenshot(shots[-1])
        # Cars publish every few seconds on a trip and every 10-15 s while waiting: wait for movement
        # (30 s is a deadline only; the caller fails on carsMoved == 0).
        def spots(d):
            return {car[0]: car[1:] for car in d.execute_script(CARS)}

        def moved(d):
            return any(key in before and before[key] != spot for key, spot in spots(d).items())

        try:
            WebDriverWait(driver, 30).until(moved)
        except TimeoutException:
            pass
        after = spots(driver)
        shots.append(os.path.join(args.artefacts, "fleet-2.png"))
        driver.save_screenshot(shots[-1])
        result["cars"] = len(after)
        result["carsMoved"] = sum(1 for key, spot in after.items() if key in before and before[key] != spot)
        result["fleetStatus"] = driver.find_element(By.ID, "status").text

        # The console: zoom in with the map's own control, then click a car and read its card.
        zoom = driver.execute_script("return hail.map.getZoom()")
        driver.find_element(By.CSS_SELECTOR, ".leaflet-control-zoom-in").click()
        WebDriverWait(driver, 10).until(lambda d: d.execute_script("return hail.map.getZoom()") > zoom)
        result["zoomedBy"] = driver.execute_script("return hail.map.getZoom()") - zoom
        # The car on a trip whose rider is furthest along, else any: centre it so it is on screen to click.
        target = driver.execute_script("""
            const cars = Array.from(hail.cars.values());
            const car = cars.find(c => c.tripState === 'onTrip') || cars.find(c => c.tripState) || cars[0];
            hail.map.setView(car.spot, hail.map.getZoom(), {animate: false});
            return car.driverID;""")
        element = WebDriverWait(driver, 10).until(
            lambda d: d.find_element(By.CSS_SELECTOR, f'.car[data-driver="{target}"]'))
        # The click goes to the car's own element: a neighbouring car drawn over it would take a pointer click
        # at that spot (chromedriver refuses it as intercepted), and the card must be this car's.
        driver.execute_script("arguments[0].click()", element)
        WebDriverWait(driver, 10).until(lambda d: d.execute_script(CARD)["shown"] == "block")
        card = driver.execute_script(CARD)
        result["clickedDriver"] = target
        result["card"] = card
        result["selected"] = driver.execute_script("return hail.selected && hail.selected.driverID")
        result["cardTrip"] = driver.execute_script(
            "const c = hail.cars.get(arguments[0]); return c.tripID ? [c.tripID, hail.trips.get(c.tripID) && "
            "hail.trips.get(c.tripID).version] : null;", target)
        shots.append(os.path.join(args.artefacts, "console-card.png"))
        driver.save_screenshot(shots[-1])
    finally:
        driver.quit()
    result["screenshots"] = shots
    print(json.dumps(result))


if __name__ == "__main__":
    main()
