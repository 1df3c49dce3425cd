# c
@problemName P
@timeStamps false
@univariate false
@dimensions 2
@equalLength false
@classLabel true a b
@data
1,2,3:4,5,6:a
7,8:9,10:b
