// SPDX-License-Identifier: MIT
#include "objectsearch.h"

#include <patterns/patternregistry.h>
#include <redis/redisvalue.h>

#include <QCoreApplication>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QVBoxLayout>

namespace gatehouse {

namespace {
constexpr int SectionRole = Qt::UserRole + 1;
constexpr int KeyRole = Qt::UserRole + 2;
} // namespace

ObjectSearch::ObjectSearch(std::shared_ptr<const Snapshot> snapshot, QWidget *parent)
    : QDialog(parent)
    , m_snapshot(std::move(snapshot))
    , m_query(new QLineEdit(this))
    , m_results(new QListWidget(this))
{
    setObjectName(QStringLiteral("objectSearch"));
    setWindowTitle(tr("Go to object"));
    m_query->setObjectName(QStringLiteral("objectSearchQuery"));
    m_query->setPlaceholderText(tr("Part of a key, on any page"));
    m_query->setClearButtonEnabled(true);
    m_results->setObjectName(QStringLiteral("objectSearchResults"));
    m_results->setUniformItemSizes(true); // up to MaxShown rows, laid out cheaply
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_query);
    layout->addWidget(m_results, 1);
    // Up and Down move in the results while typing goes on in the field.
    m_query->installEventFilter(this);
    connect(m_query, &QLineEdit::textChanged, this, &ObjectSearch::update);
    connect(m_query, &QLineEdit::returnPressed, this, &ObjectSearch::choose);
    connect(m_results, &QListWidget::itemActivated, this, &ObjectSearch::choose);
    resize(560, 380);
    update();
}

void ObjectSearch::setQuery(const QString &text)
{
    m_query->setText(text);
}

void ObjectSearch::update()
{
    m_results->clear();
    if (!m_snapshot) {
        m_results->addItem(tr("Nothing read yet: connect first."));
        return;
    }
    const QString query = m_query->text().trimmed();
    const QByteArray needle = query.toUtf8().toLower();
    const PatternRegistry &registry = PatternRegistry::instance();
    int matches = 0;
    for (const ObjectState &s : m_snapshot->objects) {
        const PatternUnit *unit = registry.find(s.object->kind);
        // Found by its key or by the name the pages give it.
        const QString name = unit ? unit->displayName(s.object) : printableBytes(s.object->key);
        if (!needle.isEmpty() && !s.object->key.toLower().contains(needle)
            && !name.contains(query, Qt::CaseInsensitive))
            continue;
        ++matches;
        if (matches > MaxShown)
            continue; // counted, not listed
        const Section section = unit ? unit->section() : Section();
        auto *item
            = new QListWidgetItem(tr("%1    %2").arg(name.left(120), section.title), m_results);
        item->setData(SectionRole, section.id);
        item->setData(KeyRole, s.object->key);
        item->setToolTip(printableBytes(s.object->key));
    }
    if (matches > MaxShown)
        m_results->addItem(tr("… and %1 more: type more of the key.").arg(matches - MaxShown));
    else if (matches == 0)
        m_results->addItem(tr("No object's key contains \"%1\".").arg(query));
    if (m_results->count() > 0)
        m_results->setCurrentRow(0);
}

void ObjectSearch::choose()
{
    const QListWidgetItem *item = m_results->currentItem();
    if (!item || item->data(SectionRole).toString().isEmpty())
        return; // a note, not an object
    Q_EMIT chosen(item->data(SectionRole).toString(), item->data(KeyRole).toByteArray());
    accept();
}

bool ObjectSearch::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_query && event->type() == QEvent::KeyPress) {
        const int key = static_cast<QKeyEvent *>(event)->key();
        if (key == Qt::Key_Down || key == Qt::Key_Up || key == Qt::Key_PageDown
            || key == Qt::Key_PageUp) {
            QCoreApplication::sendEvent(m_results, event);
            return true;
        }
    }
    return QDialog::eventFilter(watched, event);
}

} // namespace gatehouse
