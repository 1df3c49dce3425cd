/// A classifier that learns "not a gesture" from recordings with no gesture in them
/// (``TrainingContext/negatives``) instead of taking them as examples of a rest class.
public protocol NegativeLearning {}
