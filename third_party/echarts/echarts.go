// Package echarts embeds Apache ECharts' "common" bundle (line, bar, pie and scatter
// charts with the usual components), pinned, so that serdebench's HTML reports carry
// their charting library inline and open offline.
package echarts

import _ "embed" // the bundle

// Version is the ECharts release the bundle is from.
const Version = "6.1.0"

// SHA256 is the bundle's digest (dist/echarts.common.min.js of the npm package).
const SHA256 = "61f13280aba3161f77fc801bf5f9c786f55f10432153a0683fc5cc0700b013d5"

// JS is the minified bundle.
//
//go:embed echarts.common.min.js
var JS string
