GRT_LABELLED_CLASSIFICATION_DATA_FILE_V1.0
DatasetName: C
InfoText: 
NumDimensions: 2
TotalNumTrainingExamples: 3
NumberOfClasses: 2
ClassIDsAndCounters: 
1 2
2 1
UseExternalRanges: 1
ExternalRanges: 
0 1
0 1
LabelledTrainingData:
1 0.1 0.2
1 0.3 0.4
2 0.9 0.8
