// SPDX-License-Identifier: MIT
#include "countdownfigures.h"

#include <QList>
#include <QMutex>

#include <utility>

namespace gatehouse::CountdownFigures {

namespace {

struct Registry
{
    QMutex mutex;
    QList<std::pair<QString, QString>> figures; // guarded by mutex: kind id, figure id
};

Registry &registry()
{
    static Registry r;
    return r;
}

} // namespace

void add(PatternKind kind, const QString &figureId)
{
    Registry &r = registry();
    const QMutexLocker lock(&r.mutex);
    const std::pair<QString, QString> entry{kind.id(), figureId};
    if (!r.figures.contains(entry))
        r.figures.append(entry);
}

bool contains(PatternKind kind, const QString &figureId)
{
    Registry &r = registry();
    const QMutexLocker lock(&r.mutex);
    return r.figures.contains(std::pair<QString, QString>{kind.id(), figureId});
}

} // namespace gatehouse::CountdownFigures
