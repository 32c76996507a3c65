// zlib, imported only by HailRoads (OSM PBF blocks are zlib-compressed).
#include <zlib.h>
