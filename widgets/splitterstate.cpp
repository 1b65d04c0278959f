// SPDX-License-Identifier: MIT
#include "splitterstate.h"

#include <QSettings>
#include <QSplitter>

namespace gatehouse {

bool persistSplitter(QSplitter *splitter, const QString &key)
{
    const QString settingsKey = QStringLiteral("splitters/") + key;
    splitter->setObjectName(splitter->objectName().isEmpty() ? key : splitter->objectName());
    // QSettings keeps values in memory and writes them from the event loop:
    // a drag costs no disk access per move.
    QObject::connect(splitter, &QSplitter::splitterMoved, splitter, [splitter, settingsKey] {
        splitter->setProperty("sizesChosen", true);
        QSettings().setValue(settingsKey, splitter->saveState());
    });
    const QByteArray saved = QSettings().value(settingsKey).toByteArray();
    const bool restored = !saved.isEmpty() && splitter->restoreState(saved);
    splitter->setProperty("sizesChosen", restored);
    return restored;
}

} // namespace gatehouse
