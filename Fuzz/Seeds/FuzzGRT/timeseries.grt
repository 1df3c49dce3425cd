GRT_LABELLED_TIME_SERIES_CLASSIFICATION_DATA_FILE_V1.0
DatasetName: X
InfoText: t
NumDimensions: 2
TotalNumTrainingExamples: 2
NumberOfClasses: 2
ClassIDsAndCounters: 
1 1
2 1
UseExternalRanges: 0
LabelledTimeSeriesTrainingData:
************TIME_SERIES************
ClassID: 1
TimeSeriesLength: 2
TimeSeriesData: 
1 2
3 4
************TIME_SERIES************
ClassID: 2
TimeSeriesLength: 1
TimeSeriesData: 
5 6
