// SPDX-License-Identifier: MIT
#include "csvwriter.h"

#include <QAbstractItemModel>
#include <QSaveFile>
#include <QStringList>

namespace gatehouse {

bool writeCsv(const QAbstractItemModel *model, const QString &fileName)
{
    auto quote = [](QString cell) {
        if (cell.contains(QLatin1Char(',')) || cell.contains(QLatin1Char('"'))
            || cell.contains(QLatin1Char('\n')))
            cell = QLatin1Char('"') + cell.replace(QLatin1Char('"'), QLatin1String("\"\""))
                   + QLatin1Char('"');
        return cell;
    };
    QSaveFile file(fileName);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text))
        return false;
    QStringList header;
    for (int c = 0; c < model->columnCount(); ++c)
        header << quote(model->headerData(c, Qt::Horizontal).toString());
    file.write(header.join(QLatin1Char(',')).toUtf8() + '\n');
    for (int r = 0; r < model->rowCount(); ++r) {
        QStringList cells;
        for (int c = 0; c < model->columnCount(); ++c)
            cells << quote(model->index(r, c).data().toString());
        file.write(cells.join(QLatin1Char(',')).toUtf8() + '\n');
    }
    return file.commit();
}

} // namespace gatehouse
