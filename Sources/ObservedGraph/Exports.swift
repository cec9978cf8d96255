// `context.undoLog = UndoLog()` should need one import, as the design sketch shows: the undo log
// module is part of this module's public surface.
@_exported import UndoLog
