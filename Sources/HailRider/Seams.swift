// An app that imports the core gets the seams it is built on (TripAPI, DriverAPI, CallError, ...) with it.
@_exported import HailAppSeams
