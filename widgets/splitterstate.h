// SPDX-License-Identifier: MIT
#pragma once

#include <QString>

class QSplitter;

namespace gatehouse {

// A splitter whose sizes the operator chose persist (QSettings, under key):
// restored now when saved before, saved whenever a handle is moved. True
// when sizes were restored: then nothing else should re-divide the room.
bool persistSplitter(QSplitter *splitter, const QString &key);

} // namespace gatehouse
