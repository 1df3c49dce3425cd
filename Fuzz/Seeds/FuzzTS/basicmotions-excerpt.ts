#The data was generated as part of a student project where four students performed four activities whilst wearing a smart watch.
#The watch collects 3D accelerometer and a 3D gyroscope It consists of four classes, which are walking, resting, running and
#badminton. Participants were required to record motion a total of five times, and the data is sampled once every tenth of a second,
#for a ten second period.
@problemName BasicMotions
@timeStamps false
@missing false
@univariate false
@dimensions 6
@equalLength true
@seriesLength 100
@classLabel true Standing Running Walking Badminton
@data
0.079106,0.079106,-0.903497,1.116125,1.6382,1.003448,0.028774,0.03005:0.394032,0.394032,-3.666397,-0.656101,1.405135,2.220504,3.248704,3.020615:0.551444,0.551444,-0.282844,0.333118,0.393875,0.030765,-0.313529,-1.581368:0.351565,0.351565,-0.095881,1.624657,1.187864,1.004091,0.340912,-0.311615:0.02397,0.02397,-0.319605,-0.569962,-0.271664,-0.047941,0.162466,-0.013317:0.633883,0.633883,0.972131,1.209171,1.739182,1.499479,0.428803,-0.282318:Standing
