// An app that imports the core gets what it is built on with it: the seams (TripAPI, DriverAPI, CallError, ...)
// and the time type (Timeline) its initialiser takes.
@_exported import HailAppSeams
@_exported import HailTime
