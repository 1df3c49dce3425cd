GRT_LABELLED_CONTINUOUS_TIME_SERIES_CLASSIFICATION_FILE_V1.0
DatasetName: S
InfoText: 
NumDimensions: 1
TotalNumSamples: 3
NumberOfClasses: 2
ClassIDsAndCounters: 
0 1
1 1
NumberOfPositionTrackers: 2
TimeSeriesPositionTrackers: 
0 0 0
1 1 2
UseExternalRanges: 0
LabelledContinuousTimeSeriesClassificationData:
0 0.1
1 0.2
1 0.3
