package fabric

var debugTrace func(kind uint8, idx int32, now int64)
